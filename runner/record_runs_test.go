package runner

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// TestRecordRuns makes the recorded runs under testdata/runs that no live
// test makes (testdata/runs/README.md): it runs only with
// TRIGGER_KEEP_RUNS set, and TestRecordedRunsReplay asserts what each
// case is about on the recording.
func TestRecordRuns(t *testing.T) {
	if os.Getenv("TRIGGER_KEEP_RUNS") == "" {
		t.Skip("records runs only with TRIGGER_KEEP_RUNS set")
	}
	// A spike too small to trigger.
	t.Run("no-trigger", func(t *testing.T) {
		runSystemA(t, e2eScenario{capacity: 200, baseline: 50, k: 3, retries: 2})
	})
	// A trapped service watched for less time than its signals need: no
	// wait gauge, the backlog from ingress − served holds the spike for the
	// ingress query's 30 s window, longer than the 12 s observation.
	t.Run("failing-to-the-end", func(t *testing.T) {
		url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
		s := e2eScenario{url: url, capacity: 200, baseline: 80, k: 5, retries: 2, timeout: "1s", spike: "6s", observe: "12s",
			noWaitQuery: true, ingressQuery: "sum(rate(specimen_ingress_total[30s]))"}.parse(t)
		_, _ = runE2E(t, context.Background(), s)
	})
	// A target that answers 401 once it sees the spike.
	t.Run("credentials-refused-after-the-spike", func(t *testing.T) {
		a := startAuthTarget(t, false, 15)
		_, _ = runE2E(t, context.Background(), authScenario(t, a.url))
	})
	// The tests' Prometheus dies a second into the load.
	t.Run("dead-prometheus", func(t *testing.T) {
		tg, fp := startTarget(t), startFakeProm(t)
		s := parseHCL(t, brakeScenario(tg, fp, `gate { max_amplification = 4 }`))
		s.Load.Observe = 8 * time.Second
		after(tg, 1000*time.Millisecond, func() { fp.SetMode("dead") })
		dir := t.TempDir()
		_, err := Run(context.Background(), Options{Test: testOf(t, s), OutDir: dir, Logf: t.Logf})
		checkReplay(t, dir, err)
		keepRun(t, dir)
	})
}
