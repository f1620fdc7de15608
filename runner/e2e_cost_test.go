package runner

import (
	"fmt"
	"math"
	"testing"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// costMix is a target of two requests of unequal cost against the
// specimen's two pods of 100/s: "/work?cost=3" takes 30 ms of a pod (15 ms
// of the whole service's capacity), "/work" 10 ms (5 ms), half and half.
// The mix's capacity is C = 1/(0.5·15 ms + 0.5·5 ms) = 100/s, half what
// the pods serve of the cheap request alone.
func costMix(url string) string {
	return fmt.Sprintf(`target {
  allow_hosts = ["127.0.0.1"]
  request "heavy" {
    url  = "%[1]s/work?cost=3"
    cost = "15ms"
  }
  request "light" {
    url  = "%[1]s/work"
    cost = "5ms"
  }
}`, url)
}

// A mix of requests of unequal cost is judged by the mix's capacity: at
// λ = 60/s with one retry (A = 2), A·ρ_mix = 1.2 and the service is
// trapped, though at the cheap request's capacity (200/s) A·ρ would be
// 0.6; at λ = 30/s, A·ρ_mix = 0.6 and it recovers. The plan predicts
// both from the requests' costs.
func TestE2EMixIsJudgedByItsCapacity(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		baseline, k float64
		want        analysis.Verdict
	}{
		{60, 3, analysis.VerdictTrapped},
		{30, 5, analysis.VerdictRecovered},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
			e := e2eScenario{url: url, target: costMix(url), baseline: tc.baseline, k: tc.k, retries: 1, on: `"timeout"`,
				noWaitQuery: true, extra: `on_trap { action = "drop" }`}
			s := e.parse(t)
			if c := s.Service.Capacity; math.Abs(c-100) > 1e-9 {
				t.Fatalf("the mix's capacity is %g; want 100/s", c)
			}
			res, err := runE2E(t, t.Context(), s)
			if res == nil {
				t.Fatalf("run: %v", err)
			}
			d := res.Document
			if d.Prediction.Verdict != tc.want || d.Verdict != tc.want {
				t.Fatalf("predicted %s, judged %s (%s); want %s for both", d.Prediction.Verdict, d.Verdict, d.Observation.VerdictReason, tc.want)
			}
			rr := d.Observation.Requests
			if len(rr) != 2 || math.Abs(rr[0].Share-0.5) > 0.05 {
				t.Errorf("requests %+v; want two at half each", rr)
			}
		})
	}
}
