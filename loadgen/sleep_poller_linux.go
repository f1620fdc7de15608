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
// again within a quantum was the runtime's 10 ms background poll: every
// response was read up to 10 ms late (latency p99 12 ms against 2–3 ms
// with two Ps at 8,000/s), an attempt that was answered in time could
// time out, and above about 11,000/s the driver fell behind with half
// its CPU idle. Parked on the poller, the dispatcher leaves the P to the
// attempts and the network, and the timerfd's expiry wakes it as precisely
// as nanosleep. With more Ps the others poll the network, and nanosleep is
// cheaper (bench/loadgen/README.md, "One processor").
type pollerSleeper struct {
	f   *os.File // the timerfd, registered with the poller
	fd  int
	buf [8]byte // receives the expiry count
}

// newPollerSleeper opens the timerfd; nil when it cannot.
func newPollerSleeper() *pollerSleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return &pollerSleeper{f: os.NewFile(uintptr(fd), "timerfd"), fd: fd}
}

// sleep parks the calling goroutine (not its thread) for d > 0.
func (s *pollerSleeper) sleep(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(s.fd, 0, &spec, nil) != nil {
		time.Sleep(d)
		return
	}
	if _, err := s.f.Read(s.buf[:]); err != nil {
		time.Sleep(d) // not expected; the caller checks the clock anyway
	}
}

// close releases the timerfd.
func (s *pollerSleeper) close() { s.f.Close() }
