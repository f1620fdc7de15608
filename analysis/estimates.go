package analysis

import "math"

// EstimateTable sets what a run measured beside what the plan predicted
// (SPEC.md, "What a trigger test measures", item 4): capacity, utilization,
// the amplification seen by the clients and by the service, the hidden
// factor, A from the wait's slope and from the recovery time, and the
// recovery time itself.
func EstimateTable(plan Document, in Inference, recoveryS float64) []Estimate {
	p := plan.Prediction
	client := plan.Amplification.Client
	row := func(name, label, unit string, pred, meas float64, note string) Estimate {
		return Estimate{Name: name, Label: label, Unit: unit, Predicted: Num(pred), Measured: Num(meas), Note: note}
	}
	predRecovery := Value(p.RecoveryS)
	return []Estimate{
		row("baseline_per_s", "Demand λ", "1/s", plan.Scenario.DemandPerS, in.BaselinePerS, "first attempts sent during warmup"),
		row("capacity_per_s", "Capacity C", "1/s", plan.Scenario.CapacityPerS, in.CapacityPerS, capacityNote(in.CapacitySource)),
		row("utilization", "Utilization ρ = λ/C", "", plan.Scenario.Utilization, in.Utilization, ""),
		row("amplification_client", "A_client (attempts sent per first attempt)", "", client, in.AClient, "the driver's own counts, failed window"),
		row("amplification_fail", "A_fail (ingress per first attempt)", "", plan.Amplification.Predicted, in.AFail, "the service's ingress, failed window"),
		row("hidden_factor", "Hidden factor A_fail/A_client", "", plan.Amplification.Predicted/client, in.Hidden, "retries by layers the clients do not see"),
		row("wait_slope", "Wait slope after the spike (A·ρ − 1)", "s/s", p.AmplifiedUtilization-1, in.WaitSlope, ""),
		row("amplification_from_slope", "A from the wait slope", "", plan.Amplification.Predicted, in.AFromSlope, "(slope + 1)/ρ"),
		row("amplification_from_recovery", "A from the recovery time", "", plan.Amplification.Predicted, in.AFromRecovery, "recovery-time formula inverted"),
		row("recovery_s", "Recovery time", "s", predRecovery, recoveryS, recoveryNote(in)),
	}
}

func capacityNote(source string) string {
	if source == "served" {
		return "served rate while a backlog exists"
	}
	return "no served query: the scenario's value"
}

func recoveryNote(in Inference) string {
	if math.IsNaN(in.PredictedRecoveryS) || math.IsInf(in.PredictedRecoveryS, 0) {
		return ""
	}
	return "from measured A_fail and ρ the formula gives " + FormatSeconds(in.PredictedRecoveryS)
}
