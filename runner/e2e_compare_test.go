package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner/report"
)

// runOnAddr runs e against a specimen with cfg on addr, stopped after.
func runOnAddr(t *testing.T, e e2eScenario, cfg specimen.Config, addr string) *Result {
	t.Helper()
	sp, err := specimen.StartLoopbackOn(context.Background(), cfg, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sp.Stop() }()
	e.url = sp.URL
	res, err := runE2E(t, context.Background(), e.parse(t))
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// The same test against the same target, its pods slowed from 100/s to
// 80/s between the runs: the candidate recovers far slower, if at all
// (A·ρ from 0.75 to 0.94: critical slowing; the closed form says 12 s
// against 2 minutes), and compare calls it a regression, of the verdict
// or of the recovery time; the baseline against a second baseline run is
// none.
func TestE2ECompareFindsASlowerRelease(t *testing.T) {
	skipShort(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	e := e2eScenario{capacity: 200, baseline: 50, k: 5, retries: 2, spike: "3s"}
	baseRun := runOnAddr(t, e, specimen.Config{Pods: 2, PodRate: 100}, addr)
	base := baseRun.Document
	// The candidates gate on the baseline (gate.baseline), which leaves
	// the test's hash as it was.
	e.gate = fmt.Sprintf("baseline = %q", filepath.Join(baseRun.OutDir, ResultFile))
	again := runOnAddr(t, e, specimen.Config{Pods: 2, PodRate: 100}, addr).Document
	slowerRun := runOnAddr(t, e, specimen.Config{Pods: 2, PodRate: 80}, addr)
	slower := slowerRun.Document
	for _, d := range []analysis.Document{base, again} {
		if d.Verdict != analysis.VerdictRecovered {
			t.Fatalf("a baseline run ended %s; want recovered", d.Verdict)
		}
	}
	if c := analysis.Compare(base, again, analysis.DefaultCompareThresholds); !c.Comparable || c.Regressed {
		t.Errorf("baseline against baseline: comparable %v (%v), regressed %v", c.Comparable, c.NotComparable, c.Regressed)
	}
	c := analysis.Compare(base, slower, analysis.DefaultCompareThresholds)
	if !c.Comparable || !c.Regressed || !(c.VerdictRegressed || c.Figures[0].Regressed) {
		t.Errorf("the slower release: comparable %v (%v), regressed %v, verdict %s, recovery %+v", c.Comparable, c.NotComparable, c.Regressed, slower.Verdict, c.Figures[0])
	}
	// Gated on the baseline: the second baseline run passes its gate, the
	// slower release fails it on the baseline criterion.
	for _, tc := range []struct {
		doc  analysis.Document
		pass bool
	}{{again, true}, {slower, false}} {
		var crit *analysis.GateCriterion
		for i, c := range tc.doc.Gate.Criteria {
			if c.Name == "baseline" {
				crit = &tc.doc.Gate.Criteria[i]
			}
		}
		if crit == nil || crit.Passed != tc.pass || tc.doc.Comparison == nil || tc.doc.Gate.Passed != tc.pass {
			t.Errorf("gate %+v, comparison %v; want the baseline criterion passed %v", tc.doc.Gate, tc.doc.Comparison != nil, tc.pass)
		}
	}
	// The gated run's folder has the comparison's page, both timelines drawn.
	page, err := os.ReadFile(filepath.Join(slowerRun.OutDir, report.CompareHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"✗ regression", "series-baseline-ok", "series-candidate-ok", "series-candidate-wait"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("compare.html has no %q", want)
		}
	}
	t.Logf("recovery %.1f s, again %.1f s; the slower release %s, recovery %.1f s", analysis.Value(base.RecoveryS), analysis.Value(again.RecoveryS),
		slower.Verdict, analysis.Value(slower.RecoveryS))
}
