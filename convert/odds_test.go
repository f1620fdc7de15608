package convert

import (
	"context"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis/request"
)

// The test's trap_probability: the request model's odds from seed 1 over
// the default runs, the same as TrapOdds over the same seeds; null with
// the reason for a service with an autoscaler, which the request model
// leaves out.
func TestTrapProbability(t *testing.T) {
	ctx := context.Background()
	test := newTest(t, "request.hcl")
	sec, err := test.TrapProbability(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sec == nil || sec.Trapped == nil || sec.Model != "request" || sec.FirstSeed != OddsSeed || sec.RunsWanted != request.DefaultOddsRuns || sec.Runs < 1 {
		t.Fatalf("section %+v; want the request model's odds", sec)
	}
	p, err := request.TrapOdds(ctx, test.RequestConfig(OddsSeed), sec.Runs)
	if err != nil {
		t.Fatal(err)
	}
	if *sec.Trapped != p {
		t.Errorf("section %+v, TrapOdds over the same seeds %+v", *sec.Trapped, p)
	}

	scaled := newTest(t, "../../scenarios/testdata/good/all.hcl")
	if scaled.Scenario.Service.Autoscaler == nil {
		t.Fatal("all.hcl has no autoscaler")
	}
	sec, err = scaled.TrapProbability(ctx)
	if err != nil || sec == nil || sec.Trapped != nil || !strings.Contains(sec.ModelUnavailable, "autoscaler") {
		t.Errorf("autoscaled section %+v, %v; want null, the autoscaler named", sec, err)
	}
}
