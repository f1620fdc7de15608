//go:build !linux

package loadgen

import "time"

// pollerSleeper exists on Linux only (timerfd); elsewhere it sleeps in
// the thread.
type pollerSleeper struct{}

// newPollerSleeper returns nil: chooseSleeper then picks threadSleeper.
func newPollerSleeper() *pollerSleeper { return nil }

func (*pollerSleeper) sleep(due time.Duration, now func() time.Duration) {
	threadSleeper.sleep(due, now)
}
func (*pollerSleeper) close() {}
