package convert

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// One conversion feeds the driver, the models and the signals: the
// driver's request, timeout, arrivals, bound, tracers and retry policy all
// come from the scenario, its one stage outlasts the horizon, and the
// plan's soonest judgement reads the wait gauge at the embedded server's
// scrape interval.
func TestNewFromScenario(t *testing.T) {
	test := newTest(t, "driver.hcl")
	d := test.Driver
	if d.Request.Method != "POST" || d.Request.URL != "http://127.0.0.1:8080/checkout" || string(d.Request.Body) != "{}" ||
		d.Request.Header.Get("X-Test") != "yes" {
		t.Errorf("request %+v", d.Request)
	}
	if d.Timeout != 800*time.Millisecond || d.Arrivals != vocab.Uniform || d.MaxInFlight != 300 ||
		d.Tracers == nil || d.Tracers.Rate != 5 {
		t.Errorf("driver %+v", d)
	}
	if len(d.Stages) != 1 || d.Stages[0].Duration != test.Run.MaxDuration || test.Run.MaxDuration != test.Run.Horizon()+ScheduleSlack ||
		test.Run.Horizon() != 150*time.Second {
		t.Errorf("stages %+v, horizon %v", d.Stages, test.Run.Horizon())
	}
	if d.Retry.MaxRetries != 2 || !d.Retry.On.Has(vocab.Outcome503) || d.Retry.Backoff.Kind != vocab.BackoffExponential ||
		test.Retry.MaxRetries != d.Retry.MaxRetries {
		t.Errorf("retry %+v", d.Retry)
	}
	if test.Plan.Layers[0].MaxRetries != 2 || len(test.Plan.ClientBackoffS) != 2 {
		t.Errorf("plan layers %+v, backoffs %v", test.Plan.Layers, test.Plan.ClientBackoffS)
	}
	// Two retries, each one timeout and one mean backoff (full jitter:
	// half of 100 ms, then half of 200 ms) after the last.
	if want := 2*0.8 + 0.05 + 0.1; math.Abs(test.RetrySettleS-want) > 1e-9 {
		t.Errorf("retry settle %g s, want %g s", test.RetrySettleS, want)
	}
	if len(test.Signals) != 3 || test.Signals[0].Name != "ingress" || test.Signals[0].ScrapeS != 5 || test.Signals[0].RangeS != 20 {
		t.Errorf("signals %+v", test.Signals)
	}
	// The wait gauge: settle, one scrape of lag, then three scrapes.
	if want := test.RetrySettleS + 5 + 3*5; math.Abs(test.Plan.JudgeAfterS-want) > 1e-9 || !strings.Contains(test.Plan.JudgeAfterNote, "service") {
		t.Errorf("judge after %g s (%s), want %g s on the service's wait", test.Plan.JudgeAfterS, test.Plan.JudgeAfterNote, want)
	}
}

// Each request-model configuration is its own: a seed set on one does not
// reach the next, nor does a change to its stages.
func TestRequestConfigCopies(t *testing.T) {
	test := newTest(t, "driver.hcl")
	a := test.RequestConfig(1)
	a.Stages[0].RatePerS = -1
	b := test.RequestConfig(2)
	if a.Seed != 1 || b.Seed != 2 || b.Stages[0].RatePerS == -1 {
		t.Errorf("configs share state: a seed %d, b seed %d, b stage %+v", a.Seed, b.Seed, b.Stages[0])
	}
}

// newTest loads and converts a scenario of testdata, failing the test if
// either step fails.
func newTest(t *testing.T, name string) *Test {
	t.Helper()
	s, err := scenarios.Load(filepath.Join("testdata", name), nil)
	if err != nil {
		t.Fatal(err)
	}
	test, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	return test
}

// A layer's `on` reaches the model: a gateway retrying only 503s adds
// nothing to A while every try times out, and the request model's client
// sees what the client layer sees.
func TestLayerOnSetsTheAmplification(t *testing.T) {
	// recovers.hcl (clients ×3) behind a gateway that retries once, only
	// on 503: while every try times out it adds nothing.
	src, err := os.ReadFile(filepath.Join("..", "scenarios", "recovers.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\nlayer \"gateway\" {\n  max_retries = 1\n  on          = [\"503\"]\n}\n"...)
	s, err := scenarios.Parse("layer-on.hcl", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	test, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	gw := test.Plan.Layers[1]
	if gw.Sees != vocab.OutcomeTimeout || gw.Amplification() != 1 || len(gw.On) != 1 || gw.On[0] != vocab.Outcome503 {
		t.Errorf("gateway %+v: want on [503], sees timeout, ×1", gw)
	}
	s.Layers[0].On = scenarios.AnyFailure
	every, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	if a := every.Plan.Layers[0].Amplification() * every.Plan.Layers[1].Amplification(); a != 6 {
		t.Errorf("a gateway retrying every failure: A = %v, want 6", a)
	}
}
