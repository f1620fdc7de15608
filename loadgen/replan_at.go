package loadgen

import "time"

// ReplanAt is Replan taking effect at the instant at of the driver's clock
// (time since Run started) instead of now: first attempts planned before
// at keep the current schedule, those from at on follow stages, whose
// times count from at. An instant already past takes effect now. Several
// drivers started together use it to change their schedules at the same
// moment (a spike spread over machines starts together).
func (d *Driver) ReplanAt(at time.Duration, stages []Stage) {
	d.replanP.Store(&replanReq{at: max(at, d.now()), stages: append([]Stage(nil), stages...)})
	select {
	case d.replanC <- struct{}{}:
	default:
	}
}
