package referee

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
)

// findings puts what the run measured into plain words. Advice about the
// scenario's layers is given only when A_fail's interval excludes the A
// the scenario declares.
func findings(doc analysis.Document, rows []analysis.TimelineRow, in infer.Inference, recoveryS float64, layerNote string) []string {
	var out []string
	o := doc.Observation
	predicted := doc.Amplification.Predicted
	if layerNote != "" {
		out = append(out, layerNote)
	}
	if h := in.Hidden; h.Bounded() && h.Lo > 1 {
		out = append(out, fmt.Sprintf("the service sees A_fail = %s attempts per first attempt while the clients send %.2f: layers between them (gateway, mesh, SDK) multiply by %.1f",
			intervalText(in.AFail), in.AClient.Value, h.Value))
	}
	if lost := in.LostBeforeCounter; lost > 0 {
		out = append(out, fmt.Sprintf("%.0f %% of the attempts the clients sent never reached the service's ingress counter (it saw %s per first attempt): lost before the service (connections refused, or timed out in an overflowing accept queue), which is no retry layer",
			100*lost, intervalText(in.AFailCounted)))
	}
	if in.AFailCounted.Known() && !in.AFail.Known() && in.AFailNote != "" && in.LostBeforeCounter == 0 {
		out = append(out, "A_fail is not measured: "+in.AFailNote)
	}
	if in.HiddenNote != "" && in.AFail.Known() {
		out = append(out, "no hidden factor is claimed: "+in.HiddenNote)
	}
	if in.ANote != "" && in.A.Known() && (in.AFrom != infer.FromAFail || strings.Contains(in.ANote, "disagree")) {
		out = append(out, in.ANote)
	}
	// Advice about the layers only from an A that was measured, whose
	// interval excludes the scenario's by more than a tenth.
	switch a := in.A; {
	case a.Excludes(predicted) && math.Abs(a.Value/predicted-1) > 0.1:
		out = append(out, fmt.Sprintf("the scenario predicts A = %.2f, outside the measured %s = %s: update the scenario's layers", predicted, in.AFrom, intervalText(a)))
	case a.Bounded():
		out = append(out, fmt.Sprintf("%s = %s agrees with the scenario's A = %.2f", in.AFrom, intervalText(a), predicted))
	case a.Known():
		out = append(out, fmt.Sprintf("%s = %.2f was measured over too few independent samples for an interval: no advice about the layers", in.AFrom, a.Value))
	}
	if lost := 1 - reached(rows); lost > 0.1 {
		out = append(out, fmt.Sprintf("%.0f %% of the first attempts the driver sent never reached the service (its first-attempt count is lower): connections failing or the load machine overloaded; the measurement is suspect", 100*lost))
	}
	if pred := in.PredictedRecoveryS.Value; !math.IsNaN(recoveryS) && !math.IsNaN(pred) && !math.IsInf(pred, 0) && pred > 0 {
		out = append(out, fmt.Sprintf("recovered in %s; the model's formula at %s gives %s (%+.0f %%)",
			analysis.FormatSeconds(recoveryS), infer.PredictedAt(in), analysis.FormatSeconds(pred), 100*(recoveryS/pred-1)))
	}
	if n, stalled := driverLost(rows); n > 0 {
		out = append(out, fmt.Sprintf("the driver itself lost %.0f s of the run (its process did not run for %s, or it dropped first attempts it could not send on schedule): the outcomes of those seconds are the driver's, and count neither as the service's failures nor as its recovery", n, analysis.FormatSeconds(stalled)))
	}
	if d := analysis.Value(o.Dropped) + analysis.Value(o.RefusedInFlight); d > 0 {
		out = append(out, fmt.Sprintf("the driver could not send %.0f first attempts on schedule (lag bound or max_in_flight): the offered load was lower than planned", d))
	}
	if ab := analysis.Value(o.Abandoned); ab > 0 {
		out = append(out, fmt.Sprintf("%.0f requests were served after their client had given up (retry debt)", ab))
	}
	return out
}

// driverLost counts the seconds whose outcomes were the driver's own, and
// how long its process did not run in all.
func driverLost(rows []analysis.TimelineRow) (seconds, stalledS float64) {
	for _, r := range rows {
		if r.ByDriver() {
			seconds++
		}
		if r.DriverStalledS > 0 {
			stalledS += r.DriverStalledS
		}
	}
	return seconds, stalledS
}

// intervalText prints an estimate with its interval: "9.02 (8.91–9.13)".
func intervalText(iv infer.Interval) string { return iv.String() }

// reached is the share of the driver's first attempts that the service
// counted, over the seconds where both are known (1 when unknown).
func reached(rows []analysis.TimelineRow) float64 {
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
