package runner

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// findings puts what the run measured into plain words.
func findings(doc analysis.Document, rows []analysis.MeasuredSecond, in analysis.Inference, recoveryS float64) []string {
	var out []string
	o := doc.Observation
	if h := in.Hidden; !math.IsNaN(h) && h > 1.3 {
		out = append(out, fmt.Sprintf("hidden amplification: the service sees A_fail = %.2f attempts per first attempt while the clients send %.2f, a factor of %.1f from retry layers the clients do not see (gateway, mesh, SDK)",
			in.AFail, in.AClient, h))
	}
	if lost := 1 - reached(rows); lost > 0.1 {
		out = append(out, fmt.Sprintf("%.0f %% of the first attempts the driver sent never reached the service (its first-attempt count is lower): connections failing or the load machine overloaded; the measurement is suspect", 100*lost))
	}
	if a, p := in.AFail, doc.Amplification.Predicted; !math.IsNaN(a) && math.Abs(a/p-1) > 0.15 {
		out = append(out, fmt.Sprintf("the scenario predicted A = %.2f; the service experienced %.2f: update the scenario's layers", p, a))
	}
	if pred := in.PredictedRecoveryS; !math.IsNaN(recoveryS) && !math.IsNaN(pred) && !math.IsInf(pred, 0) && pred > 0 {
		out = append(out, fmt.Sprintf("recovered in %s; SPEC's formula at the measured A_fail and ρ gives %s (%+.0f %%)",
			analysis.FormatSeconds(recoveryS), analysis.FormatSeconds(pred), 100*(recoveryS/pred-1)))
	}
	if d := analysis.Value(o.Dropped) + analysis.Value(o.RefusedInFlight); d > 0 {
		out = append(out, fmt.Sprintf("the driver could not send %.0f first attempts on schedule (lag bound or max_in_flight): the offered load was lower than planned", d))
	}
	if ab := analysis.Value(o.Abandoned); ab > 0 {
		out = append(out, fmt.Sprintf("%.0f requests were served after their client had given up (retry debt)", ab))
	}
	return out
}

// reached is the share of the driver's first attempts that the service
// counted, over the seconds where both are known (1 when unknown).
func reached(rows []analysis.MeasuredSecond) float64 {
	var sent, seen float64
	for _, r := range rows {
		if !math.IsNaN(r.ServiceFirstPerS) {
			sent += r.Sent
			seen += r.ServiceFirstPerS
		}
	}
	if sent == 0 {
		return 1
	}
	return seen / sent
}
