package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/fleet/fleettest"
)

// runFleet runs e against a fresh System A specimen with its load spread
// over three agents (goroutines speaking the agents' protocol).
func runFleet(t *testing.T, e e2eScenario, eng *fleettest.Engine, during func(*Options)) (*Result, error) {
	t.Helper()
	e.url, _ = startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	s := e.parse(t)
	opts := Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond,
		Fleet: &FleetOptions{Engine: eng, Agents: 3, File: "e2e.hcl", Source: []byte(e.hcl()), JoinTimeout: 10 * time.Second}}
	if during != nil {
		during(&opts)
	}
	return runLogged(t, context.Background(), opts)
}

// checkFleetSection checks result.json's fleet section: three agents that
// each sent about a third, started within 10 ms of each other.
func checkFleetSection(t *testing.T, d analysis.Document) {
	t.Helper()
	f := d.Fleet
	if f == nil || f.Agents != 3 || len(f.PerAgent) != 3 || f.StartSkewMS == nil {
		t.Fatalf("fleet section %+v", f)
	}
	t.Logf("start skew %.3f ms; per agent %+v", *f.StartSkewMS, f.PerAgent)
	if *f.StartSkewMS >= 10 {
		t.Errorf("start skew %.1f ms, want under 10 ms", *f.StartSkewMS)
	}
	var total int64
	for _, a := range f.PerAgent {
		total += a.Sent
	}
	for _, a := range f.PerAgent {
		if share := float64(a.Sent) / float64(total); math.Abs(share-1.0/3) > 0.05 {
			t.Errorf("%s sent %.1f %% of the first attempts, want a third", a.Name, 100*share)
		}
	}
}

// Three agents against System A at A·ρ = 1.2: trapped, as one driver
// judges it (TestE2ETrappedStopsEarly), with A_fail within 10 % of the 3
// the service experiences.
func TestE2EFleetTrapped(t *testing.T) {
	skipShort(t)
	res, err := runFleet(t, e2eScenario{capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "10s"}, &fleettest.Engine{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	if d.Verdict != analysis.VerdictTrapped {
		t.Fatalf("verdict %s (%s), want trapped", d.Verdict, d.Observation.VerdictReason)
	}
	if a := analysis.Value(d.Amplification.Measured); math.Abs(a/3-1) > 0.10 {
		t.Errorf("A_fail = %.3f, want 3 ± 10 %%", a)
	}
	checkFleetSection(t, d)
}

// Three agents against System A at A·ρ = 0.75: recovered, as one driver
// judges it (TestE2ERecovers), within 25 % of the formula.
func TestE2EFleetRecovers(t *testing.T) {
	skipShort(t)
	res, err := runFleet(t, e2eScenario{capacity: 200, baseline: 50, k: 5, retries: 2}, &fleettest.Engine{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Document
	if d.Verdict != analysis.VerdictRecovered || d.RecoveryS == nil {
		t.Fatalf("verdict %s (%s), want recovered", d.Verdict, d.Observation.VerdictReason)
	}
	pred := analysis.Value(d.Observation.PredictedRecoveryS)
	if got := *d.RecoveryS; math.Abs(got/pred-1) > 0.25 {
		t.Errorf("recovered in %.1f s; the formula at measured A and ρ gives %.1f s", got, pred)
	}
	checkFleetSection(t, d)
}

// An agent killed during the warmup ends the run inconclusive, naming it,
// and the result is still written.
func TestE2EFleetLostAgentIsInconclusive(t *testing.T) {
	skipShort(t)
	eng := &fleettest.Engine{}
	var killedAt time.Time
	res, err := runFleet(t, e2eScenario{capacity: 200, baseline: 50, k: 5, retries: 2}, eng, func(o *Options) {
		o.Progress = func(st Status) {
			if killedAt.IsZero() && st.Phase == "warmup" && st.Elapsed > time.Second {
				killedAt = time.Now()
				eng.Kill(2)
			}
		}
	})
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInconclusive || !errors.Is(err, ErrAgentLost) || !strings.Contains(err.Error(), "agent-2") {
		t.Fatalf("Run = %v, want inconclusive with ErrAgentLost naming agent-2", err)
	}
	d := res.Document
	if d.Verdict != analysis.VerdictInconclusive || d.Fleet == nil || d.Fleet.PerAgent[2].Lost == "" {
		t.Errorf("verdict %s, fleet %+v", d.Verdict, d.Fleet)
	}
	t.Logf("run ended %.1f s after the kill: %v", time.Since(killedAt).Seconds(), err)
}
