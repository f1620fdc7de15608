package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// warmup checks the baseline before any spike: refused credentials stop
// the run at once; at the warmup's end a service already failing (or a
// target that is down) stops it, and a healthy one gets its spike.
func (r *Referee) warmup(now float64, d *Decision) {
	if why := r.credentialsRefused(); why != "" {
		r.inconclusive, r.kind, d.Over = why, KindCredentialsRefused, true
		return
	}
	if now < r.WarmupEndS() {
		return
	}
	if why, refused := r.baselineFailing(); why != "" {
		r.inconclusive, r.kind, d.Over = why, KindBaselineFailing, true
		if refused {
			r.kind = KindTargetRefused
		}
		return
	}
	r.stage = stageSpikeAsked
	d.StartSpike = true
}

// WarmupEndS is when the warmup ends, seconds into the run: the
// scenario's warmup, but never before the first attempts' outcomes can be
// known (one client timeout after the first second, and a second more):
// against a target that never answers, a warmup no longer than the
// timeout saw no failure, and the spike went to a dead target.
func (r *Referee) WarmupEndS() float64 {
	return math.Max(r.cfg.WarmupS, 1+r.timeoutS()+1)
}

// baselineFailing says why the service is already failing at baseline, or
// "" when it is healthy: more first attempts failed during the warmup (the
// first second, connection set-up, aside) than the recovery rule allows.
// refused is set when the failures are all connections the target refused
// or reset: then the target is down, not overloaded.
func (r *Referee) baselineFailing() (why string, refused bool) {
	var failed, connect, done, sent, firstDone float64
	for _, row := range r.rows {
		sent += row.Sent
		firstDone += row.FirstDone
		if row.TS < 1 || row.ByDriver() {
			continue
		}
		failed += row.FirstFailed()
		connect += row.FirstConnect
		done += row.FirstDone
	}
	if sent > 0 && firstDone == 0 {
		return fmt.Sprintf("none of the %.0f first attempts sent during the warmup completed, not even by timing out: the driver cannot measure this target", sent), false
	}
	if failed == 0 || failed <= (1-r.cfg.SuccessRatio)*done {
		return "", false
	}
	if connect == failed {
		return fmt.Sprintf("every connection to the target failed before any response during the warmup (%.0f first attempts to %s: refused, or accepted and then reset or closed): is it up, and does it answer HTTP there?", connect, r.cfg.TargetURL), true
	}
	return fmt.Sprintf("%.0f of %.0f first attempts failed during the warmup at %.0f/s, before any spike; a trigger test needs a healthy baseline",
		failed, done, r.plan.Scenario.DemandPerS), false
}

// credentialsRefused says why the warmup stops the run at once ("" when
// it does not): the target answered first attempts 401 or 403 at baseline
// demand, before any spike; a run on refused credentials would measure
// nothing of the service.
func (r *Referee) credentialsRefused() string {
	var auth, done float64
	for _, row := range r.rows {
		auth += analysis.ZeroIfUnknown(row.FirstAuth)
		done += row.FirstDone
	}
	if auth == 0 {
		return ""
	}
	return fmt.Sprintf("%.0f of the %.0f first attempts completed during the warmup were answered 401 or 403; nothing was spiked: check the target's credentials (its Authorization header, a token variable)",
		auth, done)
}

// timeoutS is τ_out, the clients' attempt timeout, seconds: the plan's.
func (r *Referee) timeoutS() float64 { return r.plan.Scenario.TimeoutS }
