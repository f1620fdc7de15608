//go:build linux

package loadgen

import (
	"syscall"
	"time"
)

// preciseSleep blocks the calling thread for d with nanosleep(2), which
// wakes within the thread's timer slack; the Go runtime's timers wake an
// idle process with millisecond granularity (epoll_wait takes
// milliseconds), which alone would put the dispatch lag's p99 past its
// goal (bench/loadgen/README.md, "Dispatch lag at half the highest
// sustained rate", has the figures before and after). The sleeping thread
// holds its P until the runtime takes it back; with one P the dispatcher
// uses pollerSleeper instead. Only short waits (≤ fineWindow) go through
// here.
func preciseSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var rem syscall.Timespec
		err := syscall.Nanosleep(&ts, &rem)
		if err != syscall.EINTR {
			return
		}
		ts = rem
	}
}
