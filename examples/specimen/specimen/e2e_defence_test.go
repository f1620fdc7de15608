package specimen_test

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/loadgen"
)

// TestAdmissionBoundHalfTimeout: with b = τ_out/2 every admitted attempt is
// served before its client gives up (SPEC "Admission bound": b < τ_out), so
// the same spike that traps System A at ρ = 0.4 leaves no debt: no abandoned
// work is ever served, the excess is refused at the door, and every attempt
// succeeds again within a few seconds of the spike's end.
func TestAdmissionBoundHalfTimeout(t *testing.T) {
	e2e(t, true)
	cfg := systemA()
	cfg.AdmissionBound = clientTimeout / 2
	r := drive(t, cfg, spike(0.4, 8*time.Second), 2, nil)
	end := r.samples[len(r.samples)-1]
	if end.Rejected["admission"] == 0 {
		t.Fatal("nothing refused at the door: the spike was no trigger")
	}
	// The specimen's promise: no admitted request waits longer than b plus
	// one service time, so none outlives its client's 1 s.
	if limit := cfg.AdmissionBound + time.Duration(float64(time.Second)/capacity); end.MaxQueueWait > limit {
		t.Errorf("an admitted request waited %v > b + 1/c = %v", end.MaxQueueWait, limit)
	}
	// Hence no debt. A request can still reach the handler late when the
	// machine starves the process (the client's clock started earlier): a
	// shared 2-core box under others' load showed 1 in ~1,000. Tolerate
	// 0.2 % of the served work, report any.
	if served := end.Answered + end.Abandoned; end.Abandoned > served/500 {
		t.Errorf("%d abandoned of %d served: debt formed", end.Abandoned, served)
	} else if end.Abandoned > 0 {
		t.Logf("%d abandoned of %d served (client-side scheduling delay, within tolerance)", end.Abandoned, served)
	}
	const settle = 3 // seconds after the spike's end
	for i := spikeEnd + settle; i < len(r.timeline); i++ {
		s := r.timeline[i]
		if bad := s.Completed() - s.FirstOutcomes[loadgen.OutcomeOK] - s.RetryOutcomes[loadgen.OutcomeOK]; bad > 0 {
			t.Errorf("second %d (%d s after the spike): %d attempts failed", i, i-spikeEnd, bad)
		}
		if s.Sent > 0 && s.FirstOutcomes[loadgen.OutcomeOK] == 0 {
			t.Errorf("second %d: no first attempt answered", i)
		}
	}
}

// TestAdmissionBoundTwiceTimeout: b = 2·τ_out admits attempts that wait past
// their client's timeout; they are served anyway, so debt still forms.
func TestAdmissionBoundTwiceTimeout(t *testing.T) {
	e2e(t, true)
	cfg := systemA()
	cfg.AdmissionBound = 2 * clientTimeout
	r := drive(t, cfg, spike(0.4, 5*time.Second), 2, nil)
	end := r.samples[len(r.samples)-1]
	if end.Abandoned == 0 {
		t.Error("no abandoned work served: a bound longer than the timeout must still build debt")
	}
	if end.Rejected["admission"] == 0 {
		t.Error("nothing refused at the door")
	}
	t.Logf("abandoned %d, refused %d", end.Abandoned, end.Rejected["admission"])
}
