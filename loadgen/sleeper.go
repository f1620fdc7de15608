package loadgen

import (
	"runtime"
	"time"
)

// A sleeper waits out the dispatcher's last stretch before a planned time
// (at most fineWindow) more precisely than the runtime's timer, which
// wakes an idle process with millisecond granularity. NewDriver picks one
// for the process (chooseSleeper); the dispatcher finishes any wait a
// sleeper leaves on the runtime timer, so a sleeper may return early.
type sleeper interface {
	// sleep returns at about due on the driver's clock now.
	sleep(due time.Duration, now func() time.Duration)
	// close releases what the sleeper holds; the dispatcher calls it
	// when the schedule ends.
	close()
}

// sleeperFunc adapts a function that holds nothing to a sleeper.
type sleeperFunc func(due time.Duration, now func() time.Duration)

func (f sleeperFunc) sleep(due time.Duration, now func() time.Duration) { f(due, now) }
func (sleeperFunc) close()                                              {}

var (
	_ sleeper = sleeperFunc(nil)
	_ sleeper = (*pollerSleeper)(nil)
)

// threadSleeper sleeps in the dispatcher's thread (preciseSleep), after
// letting the attempts just spawned, queued on its P, run first: the
// sleeping thread holds its P until the runtime takes it back, which the
// other Ps make up for.
var threadSleeper = sleeperFunc(func(due time.Duration, now func() time.Duration) {
	runtime.Gosched()
	if wait := due - now(); wait > 0 {
		preciseSleep(wait)
	}
})

// timerSleeper leaves the whole wait to the runtime's timer: for tests
// that run the driver on a fake clock.
var timerSleeper = sleeperFunc(func(time.Duration, func() time.Duration) {})

// chooseSleeper picks the dispatcher's sleeper: with one P (GOMAXPROCS=1,
// as in a pod with a one-CPU limit) the network poller's (pollerSleeper),
// which leaves the only P to the attempts and the network, else the
// thread's (bench/loadgen/README.md, "One processor", measures both).
func chooseSleeper() sleeper {
	if p := newPollerSleeper(); p != nil && runtime.GOMAXPROCS(0) == 1 {
		return p
	}
	return threadSleeper
}
