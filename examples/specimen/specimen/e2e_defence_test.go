package specimen_test

import (
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// TestAdmissionBoundHalfTimeout: with b = τ_out/2 every admitted attempt is
// served before its client gives up (docs/model.md, "Autoscalers, ceilings and admission": b < τ_out), so
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
	// Answering again: from 3 s after the spike's end, every second's first
	// attempts succeed (ratio ≥ 0.9 each second, ≥ 0.99 over the window, as
	// the recovered threshold of docs/model.md, "What a trigger test measures"; 1.0 on a quiet machine).
	const settle = 3 // seconds after the spike's end
	var ok, done int64
	for i := spikeEnd + settle; i < len(r.timeline); i++ {
		s := r.timeline[i]
		var n int64
		for o := range vocab.NumOutcomes {
			n += s.FirstOutcomes[o]
		}
		ok, done = ok+s.FirstOutcomes[vocab.OutcomeOK], done+n
		if n > 0 && float64(s.FirstOutcomes[vocab.OutcomeOK]) < 0.9*float64(n) {
			t.Errorf("second %d (%d s after the spike): %d of %d first attempts succeeded", i, i-spikeEnd, s.FirstOutcomes[vocab.OutcomeOK], n)
		}
	}
	if done == 0 || float64(ok) < 0.99*float64(done) {
		t.Errorf("after the spike: %d of %d first attempts succeeded", ok, done)
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
