//go:build linux

package loadgen

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// pollerSleeper waits out the dispatcher's last stretch before a planned
// time on a timerfd(2) that the runtime's network poller watches, instead
// of preciseSleep's nanosleep. It is for a process with one P
// (GOMAXPROCS=1, as in a pod with a one-CPU limit): there nanosleep holds
// the only P in a system call, and the runtime polls the network only when
// it has nothing else to run, which with the dispatcher always runnable
// again within a quantum was the runtime's background poll: responses were
// read late, an attempt answered in time could time out, and the driver
// fell behind with CPU to spare. Parked on the poller, the dispatcher
// leaves the P to the attempts and the network, and the timerfd's expiry
// wakes it as precisely as nanosleep. With more Ps the others poll the
// network, and nanosleep is cheaper (bench/loadgen/README.md, "One
// processor", has the figures).
//
// The timerfd is opened at the first sleep, so a driver that never runs
// holds none; where it cannot be opened the sleeper sleeps in the thread.
type pollerSleeper struct {
	f      *os.File // the timerfd, registered with the poller; nil before the first sleep
	fd     int
	failed bool    // the timerfd could not be opened
	buf    [8]byte // receives the expiry count
}

// newPollerSleeper returns a sleeper on the network poller.
func newPollerSleeper() *pollerSleeper { return &pollerSleeper{} }

// open opens the timerfd once; false when it cannot.
func (s *pollerSleeper) open() bool {
	if s.f == nil && !s.failed {
		fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err != nil {
			s.failed = true
			return false
		}
		s.f, s.fd = os.NewFile(uintptr(fd), "timerfd"), fd
	}
	return s.f != nil
}

// sleep parks the calling goroutine (not its thread) until about due.
func (s *pollerSleeper) sleep(due time.Duration, now func() time.Duration) {
	d := due - now()
	if d <= 0 {
		return
	}
	if !s.open() {
		threadSleeper.sleep(due, now)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(s.fd, 0, &spec, nil) != nil {
		return // the dispatcher finishes the wait on the runtime timer
	}
	_, _ = s.f.Read(s.buf[:]) // an error is not expected; the dispatcher checks the clock anyway
}

// close releases the timerfd, if one was opened.
func (s *pollerSleeper) close() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}
