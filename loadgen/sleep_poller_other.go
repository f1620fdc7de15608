//go:build !linux

package loadgen

import "time"

// pollerSleeper exists on Linux only (timerfd); elsewhere there is none.
type pollerSleeper struct{}

// newPollerSleeper returns nil: the dispatcher uses preciseSleep.
func newPollerSleeper() *pollerSleeper { return nil }

func (*pollerSleeper) sleep(d time.Duration) { time.Sleep(d) }
func (*pollerSleeper) close()                {}
