package runner

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/fleet/fleettest"
	"github.com/trigger-test/trigger/loadgen"
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

// forge posts a report for agent index as someone between the agents and
// the coordinator would: trusting any certificate, signed with key (none
// when ""), and returns the status.
func forge(t *testing.T, spec fleet.AgentSpec, index int, key string, rep fleet.Report) int {
	t.Helper()
	body, _ := json.Marshal(rep)
	req, err := http.NewRequest(http.MethodPost, spec.Coordinator+fleet.ReportPath, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		if err := fleet.Sign(req, key, index, 1<<40, body); err != nil {
			t.Fatal(err)
		}
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		t.Errorf("forged report: %v", err)
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// A trapped run (TestE2EFleetTrapped) with forged reports of an agent's
// seconds (sent = −7, a latency of 1e308) posted during its warmup: those
// without the agent's key are refused and change nothing; the one signed
// with its key does not add up and makes the agent lost. The run ends
// inconclusive, never recovered (a pass), and the forged values are in
// no timeline.
func TestE2EFleetForgedReportCannotPass(t *testing.T) {
	skipShort(t)
	eng := &fleettest.Engine{}
	forged := loadgen.Second{Index: 0, Sent: -7, Latency: loadgen.Summary{Count: 1, Mean: 1e308, P50: 1e308, P99: 1e308, Max: 1e308}}
	rep := fleet.Report{Index: 1, Ready: true, StartedUnixNS: time.Now().UnixNano(), Seconds: []loadgen.Second{forged}}
	var codes []int
	res, err := runFleet(t, e2eScenario{capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "10s"}, eng, func(o *Options) {
		o.Progress = func(st Status) {
			if codes == nil && st.Phase == "warmup" && st.Elapsed > time.Second {
				spec := eng.Spec()
				codes = append(codes,
					forge(t, spec, 1, "", rep),
					forge(t, spec, 1, strings.Repeat("0", 64), rep),
					forge(t, spec, 1, spec.Keys[0], rep), // agent 0's key for agent 1
				)
				codes = append(codes, forge(t, spec, 1, spec.Keys[1], rep))
			}
		}
	})
	if want := []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusForbidden, http.StatusOK}; !slices.Equal(codes, want) {
		t.Errorf("forged reports answered %v, want %v", codes, want)
	}
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindInconclusive || !errors.Is(err, ErrAgentLost) || !strings.Contains(err.Error(), "agent-1") {
		t.Fatalf("Run = %v, want inconclusive with agent-1 lost", err)
	}
	d := res.Document
	if d.Verdict != analysis.VerdictInconclusive || d.Fleet == nil || !strings.Contains(d.Fleet.PerAgent[1].Lost, "does not add up") {
		t.Errorf("verdict %s, fleet %+v; want inconclusive, agent-1 lost for a report that does not add up", d.Verdict, d.Fleet)
	}
	if d.Fleet != nil && d.Fleet.PerAgent[0].Lost != "" {
		t.Errorf("agent-0 lost (%s) by forged reports it did not sign", d.Fleet.PerAgent[0].Lost)
	}
	csv, _ := os.ReadFile(filepath.Join(res.OutDir, "timeline.csv"))
	for _, row := range res.Timeline {
		if row.Sent < 0 || row.LatencyP99S > 3600 {
			t.Errorf("timeline row %+v holds a forged value", row)
		}
	}
	if bytes.Contains(csv, []byte("e+308")) || bytes.Contains(csv, []byte(",-7,")) {
		t.Error("timeline.csv holds a forged value")
	}
}
