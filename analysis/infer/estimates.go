package infer

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// EstimateTable sets what a run measured beside what the plan predicted
// (docs/model.md, "What a trigger test measures", item 4): capacity,
// utilization, the amplification seen by the clients and by the service,
// the hidden factor, the wait's slope, A from the slope and from the
// recovery time, and the recovery time itself, each with its 95 % interval
// where the data give one.
func EstimateTable(plan analysis.Document, in Inference, recoveryS float64, waitSource analysis.WaitSource) []analysis.Estimate {
	p := plan.Prediction
	client := plan.Amplification.Client
	row := func(name, label, unit string, pred float64, meas Interval, note string) analysis.Estimate {
		return analysis.Estimate{Name: name, Label: label, Unit: unit, Predicted: analysis.Num(pred), Measured: analysis.Num(meas.Value),
			MeasuredLo: analysis.Num(meas.Lo), MeasuredHi: analysis.Num(meas.Hi), Note: note}
	}
	point := func(x float64) Interval { return Interval{Value: x, Lo: math.NaN(), Hi: math.NaN()} }
	slopeNote := "not measured: no settled wait signal"
	if waitSource != "" {
		slopeNote = "from the " + string(waitSource) + " wait, settled samples only"
	}
	fromSlopeNote := "(slope + 1)/ρ"
	switch {
	case waitSource == analysis.WaitFromBacklog:
		fromSlopeNote = "not reported: the slope of ingress − served restates A_fail"
	case in.AFromSlopeNote != "":
		fromSlopeNote = in.AFromSlopeNote
	}
	return []analysis.Estimate{
		row("baseline_per_s", "Demand λ", "1/s", plan.Scenario.DemandPerS, point(in.BaselinePerS), "first attempts sent during warmup"),
		row("capacity_per_s", "Capacity C", "1/s", plan.Scenario.CapacityPerS, point(in.CapacityPerS), capacityNote(in)),
		row("utilization", "Utilization ρ = λ/C", "", plan.Scenario.Utilization, point(in.Utilization), ""),
		row("amplification_client", "A_client (attempts per request, all failing)", "", client, in.AClient, "the driver's cohorts whose every attempt failed"),
		row("amplification_fail", "A_fail (ingress per first attempt)", "", plan.Amplification.Predicted, in.AFail, aFailNote(in)),
		row("hidden_factor", "Hidden factor A_fail/A_client", "", plan.Amplification.Predicted/client, in.Hidden, hiddenNote(in)),
		row("wait_slope", "Wait slope after the spike (A·ρ − 1)", "s/s", p.AmplifiedUtilization-1, in.WaitSlope, slopeNote),
		row("amplification_from_slope", "A from the wait slope", "", plan.Amplification.Predicted, in.AFromSlope, fromSlopeNote),
		row("amplification_from_recovery", "A from the recovery time", "", plan.Amplification.Predicted, in.AFromRecovery, orDefault(in.AFromRecoveryNote, "recovery-time formula inverted")),
		row("recovery_s", "Recovery time", "s", analysis.Value(p.RecoveryS), point(recoveryS), recoveryNote(in)),
	}
}

func capacityNote(in Inference) string {
	if in.CapacitySource == "served" {
		return "served rate while every attempt fails"
	}
	return in.CapacityNote
}

func recoveryNote(in Inference) string {
	pr := in.PredictedRecoveryS.Value
	if math.IsNaN(pr) || math.IsInf(pr, 0) {
		return in.PredictedNote
	}
	return "the formula at " + PredictedAt(in) + " gives " + analysis.FormatSeconds(pr)
}

// PredictedAt names the A the recovery's prediction used, with its value:
// "the measured A_fail = 2.98", "the scenario's A = 3.00 (A not measured)".
func PredictedAt(in Inference) string {
	switch in.PredictedFrom {
	case FromAFail:
		return fmt.Sprintf("the measured A_fail = %.2f and ρ", in.PredictedA)
	case FromScenario:
		return fmt.Sprintf("the scenario's A = %.2f and the measured ρ (A not measured)", in.PredictedA)
	case FromClients:
		return fmt.Sprintf("the clients' own A = %.2f (the driver's count) and the measured ρ", in.PredictedA)
	}
	return fmt.Sprintf("%s = %.2f and the measured ρ", in.PredictedFrom, in.PredictedA)
}

func aFailNote(in Inference) string {
	if in.AFail.Known() {
		return "the service's ingress, settled failed window, tracers left out"
	}
	return in.AFailNote
}

func hiddenNote(in Inference) string {
	if in.Hidden.Known() {
		return "retries by layers the clients do not see"
	}
	return in.HiddenNote
}

// orDefault is note, or def when note is empty.
func orDefault(note, def string) string {
	if note != "" {
		return note
	}
	return def
}
