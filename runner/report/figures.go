package report

import (
	"strconv"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
)

// figure is one figure of a document as the reports show it: its label
// and its measured and predicted values, already formatted ("" when the
// figure has no such side).
type figure struct{ Label, Measured, Predicted string }

// figures are a document's figures, each named, made with its values
// from the document's fields: report.html, report.md and the terminal
// pick the figures they show by name, so a table is never patched by a
// row's position. A nil figure is one the document has nothing to show
// for (a plan has no totals, a run without on_trap no on_trap row).
type figures struct {
	// The verdict against the prediction; TrapOdds is a run's one draw
	// beside the model's P(trap) (the document's trap_probability).
	Verdict, TrapOdds, Recovery, RecoveryWithLag, RecoveryFromFormula *figure
	PeakWait, FinalWait, WaitSlope, OnTrap                            *figure

	// The amplification: the clients', A_fail, the hidden factor, the A
	// the run stands by, and what A gives (1/A, A·ρ), measured at A_fail
	// and the measured ρ; A from the slope and from the recovery time.
	AClient, AFail, Hidden, Standing    *figure
	TrapThreshold, AmplifiedUtilization *figure
	AFromSlope, AFromRecovery           *figure

	// The trigger check.
	TriggerValid, Overload, Timeout, Margin, T0, MinMultiplier, MinSpike *figure

	// The run's totals (measured only).
	TimedOut, Refused, FirstFailed, FailedRequests, LostWork, Abandoned *figure
	Dropped, RefusedInFlight, Length                                    *figure
	// WorkLost is the lost work and the requests failed on one row.
	WorkLost *figure

	// Latency is the first attempts' latency by phase, a row a phase
	// (newLatencyTable); nil when the document has none to show.
	Latency *latencyTable
}

// newFigures makes every figure of doc the reports show.
func newFigures(doc analysis.Document) figures {
	obs, a, p := doc.Observation, doc.Amplification, doc.Prediction
	var f figures
	f.Verdict = &figure{"Verdict", string(doc.Verdict), string(p.Verdict)}
	f.TrapOdds = &figure{trapOddsLabel, analysis.OneDrawText(doc.Kind, doc.Verdict), doc.TrapProbability.ModelText()}
	f.Recovery = &figure{"Recovery after the spike", recoveryMeasured(doc), recoveryPredicted(doc)}
	if p.RecoveryWithRetryLagS != nil {
		f.RecoveryWithLag = &figure{"Recovery, counting the retries' lag", "", secPtr(p.RecoveryWithRetryLagS)}
	}
	if obs != nil && obs.PredictedRecoveryS != nil {
		at := obs.PredictedRecoveryFrom
		if at == "" {
			at = "the measured A_fail and ρ"
		}
		f.RecoveryFromFormula = &figure{"Recovery from the formula at " + at, "", secPtr(obs.PredictedRecoveryS)}
	}
	if obs != nil {
		f.PeakWait = &figure{"Peak wait", secPtr(obs.PeakWaitS), analysis.FormatSeconds(p.PeakWaitS)}
		f.FinalWait = &figure{"Wait at the end", secPtr(obs.FinalWaitS), ""}
		f.WaitSlope = &figure{"Wait slope at the end (A·ρ − 1)", withInterval(obs.WaitSlope, obs.WaitSlopeLo, obs.WaitSlopeHi, "s/s"), num(p.AmplifiedUtilization-1) + " s/s"}
	}
	if s := onTrapText(doc); s != "" {
		f.OnTrap = &figure{"on_trap", s, ""}
	}

	aClient, t0 := unknown, unknown
	if obs != nil {
		aClient, t0 = numPtr(obs.AmplificationClient), secPtr(obs.T0S)
	}
	f.AClient = &figure{"A_client: attempts the clients send per first attempt", aClient, num(a.Client)}
	f.AFail = &figure{"A_fail: attempts reaching the service per first attempt", aFailMeasured(a), num(a.Predicted)}
	f.Hidden = &figure{"Hidden factor A_fail / A_client", numPtr(a.Hidden), num(predictedHidden(doc))}
	f.Standing = &figure{"A, as the run stands by it", standingText(a), num(a.Predicted)}
	f.TrapThreshold = &figure{"Trap threshold 1/A (utilization at which a trigger traps)", measuredTrapThreshold(a, obs), num(p.TrapThreshold)}
	f.AmplifiedUtilization = &figure{"A·ρ (trapped at 1 or more)", measuredAmplifiedUtilization(a, obs), num(p.AmplifiedUtilization)}
	if obs != nil && (obs.AmplificationFromSlope != nil || obs.AmplificationFromRecovery != nil) {
		f.AFromSlope = &figure{"A from the wait's slope, (slope + 1)/ρ", numPtr(obs.AmplificationFromSlope), ""}
		f.AFromRecovery = &figure{"A from the recovery time, formula inverted", numPtr(obs.AmplificationFromRecovery), ""}
	}

	t := doc.Trigger
	valid := "no: the spike cannot push the wait past the timeout"
	if t.Valid {
		valid = "yes"
	}
	f.TriggerValid = &figure{"Spike is a trigger, (k·ρ − 1)·Δ > τ_out", "", valid}
	f.Overload = &figure{"Overload (k·ρ − 1)·Δ", "", num(t.OverloadS) + " s"}
	f.Timeout = &figure{"Client timeout τ_out", "", analysis.FormatSeconds(t.TimeoutS)}
	f.Margin = &figure{"Margin, overload / τ_out", "", num(t.Margin)}
	f.T0 = &figure{"t0: wait crosses τ_out after the spike starts", t0, secPtr(t.T0S)}
	f.MinMultiplier = &figure{"Smallest trigger multiple k for this Δ", "", numPtr(p.MinMultiplier)}
	f.MinSpike = &figure{"Smallest trigger length Δ for this k", "", secPtr(p.MinSpikeS)}

	f.WorkLost = &figure{"Work lost", workLost(obs), ""}
	f.Latency = newLatencyTable(doc)
	if obs != nil {
		f.TimedOut = &figure{"Attempts timed out", numPtr(obs.TimedOut), ""}
		f.Refused = &figure{"Attempts refused (503/429)", numPtr(obs.Refused), ""}
		if s := firstFailedText(obs); s != "" {
			f.FirstFailed = &figure{"First attempts failed", s, ""}
		}
		f.FailedRequests = &figure{"Requests failed (every attempt)", numPtr(obs.FailedRequests), ""}
		f.LostWork = &figure{"Work lost, seconds of demand", secPtr(obs.LostWorkS), ""}
		f.Abandoned = &figure{"Served after the client left (retry debt)", numPtr(obs.Abandoned), ""}
		if obs.Dropped != nil || obs.RefusedInFlight != nil {
			f.Dropped = &figure{"First attempts the driver dropped (lag bound)", numPtr(obs.Dropped), ""}
			f.RefusedInFlight = &figure{"Attempts refused at max_in_flight", numPtr(obs.RefusedInFlight), ""}
		}
		if obs.EndS > 0 {
			f.Length = &figure{"Length of the run", analysis.FormatSeconds(obs.EndS), ""}
		}
	}
	return f
}

// trapOddsLabel labels P(trap): measured, a run's verdict, one draw;
// predicted, the model's odds over its seeded runs ("not computed" for a
// document written without them).
const trapOddsLabel = "P(trap): this run's draw, the model's odds"

// measuredTrapThreshold is 1/A at the measured A_fail; unknown when A_fail
// is not a measurement (or nothing was observed).
func measuredTrapThreshold(a analysis.AmplificationSection, obs *analysis.Observation) string {
	if a.Measured == nil || obs == nil || *a.Measured <= 0 {
		return unknown
	}
	return num(1 / *a.Measured)
}

// measuredAmplifiedUtilization is A·ρ at the measured A_fail and the
// measured ρ; unknown when either is not measured.
func measuredAmplifiedUtilization(a analysis.AmplificationSection, obs *analysis.Observation) string {
	if a.Measured == nil || obs == nil || obs.Utilization == nil {
		return unknown
	}
	return num(*a.Measured * *obs.Utilization)
}

// rows are the figures given that the document has, in their order.
func rows(fs ...*figure) []figure {
	var out []figure
	for _, f := range fs {
		if f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// summaryRows is the table of the verdict against the prediction.
func (f figures) summaryRows() []figure {
	return rows(f.Verdict, f.TrapOdds, f.Recovery, f.RecoveryWithLag, f.RecoveryFromFormula, f.PeakWait, f.FinalWait, f.WaitSlope, f.OnTrap)
}

// amplificationRows is the table of the amplification.
func (f figures) amplificationRows() []figure {
	return rows(f.AClient, f.AFail, f.Hidden, f.Standing, f.TrapThreshold, f.AmplifiedUtilization, f.AFromSlope, f.AFromRecovery)
}

// triggerRows is the table of the trigger check.
func (f figures) triggerRows() []figure {
	return rows(f.TriggerValid, f.Overload, f.Timeout, f.Margin, f.T0, f.MinMultiplier, f.MinSpike)
}

// totalRows is the table of the run's totals; empty without an observation.
func (f figures) totalRows() []figure {
	return rows(f.TimedOut, f.Refused, f.FirstFailed, f.FailedRequests, f.LostWork, f.Abandoned, f.Dropped, f.RefusedInFlight, f.Length)
}

// layerRow is one retry layer of the amplification, formatted.
type layerRow struct{ Name, Retries, Probability, Budget, Factor string }

// layerRows is the table of the retry layers and their factors.
func layerRows(a analysis.AmplificationSection) []layerRow {
	var out []layerRow
	for _, l := range a.Layers {
		row := layerRow{Name: l.Name, Retries: strconv.Itoa(l.MaxRetries), Probability: "1", Budget: unknown, Factor: num(l.Amplification)}
		if l.RetryProbability > 0 {
			row.Probability = num(l.RetryProbability)
		}
		if l.HasBudget {
			row.Budget = "β = " + num(l.Budget)
		}
		out = append(out, row)
	}
	return out
}

// estimateRow is one row of the predicted-against-measured table, its
// values in their unit with the measured value's 95 % interval.
type estimateRow struct{ Label, Measured, Predicted, Note string }

// estimateRows is the table of predicted against measured quantities.
func estimateRows(obs *analysis.Observation) []estimateRow {
	if obs == nil {
		return nil
	}
	var out []estimateRow
	for _, e := range obs.Estimates {
		out = append(out, estimateRow{e.Label, withInterval(e.Measured, e.MeasuredLo, e.MeasuredHi, e.Unit), withUnit(e.Predicted, e.Unit), e.Note})
	}
	return out
}

// runFacts place the document: when the run started (the wall clock,
// UTC), its target (the scheme and host of the scenario's), and the
// trigger that ran it; unknown when the document does not say. A plan or
// a model has no start, and names a trigger only when it records one.
func runFacts(doc analysis.Document) []fact {
	orUnknown := func(s string) string {
		if s == "" {
			return unknown
		}
		return s
	}
	var out []fact
	run := doc.Kind == "run"
	if run {
		started := ""
		if doc.Observation != nil {
			started = startedText(doc.Observation.StartedAt)
		}
		out = append(out, fact{"Started", orUnknown(started)})
	}
	out = append(out, fact{"Target", orUnknown(doc.Scenario.Target)})
	if run || doc.TriggerVersion != "" {
		out = append(out, fact{"trigger version", orUnknown(doc.TriggerVersion)})
	}
	return out
}

// RunLine is the line that places a document, for the terminal: "Started:
// 2026-12-05 03:37:42 UTC · Target: http://127.0.0.1:8080 · trigger
// version: v1.4.2" (runFacts, as report.html and report.md show them).
func RunLine(doc analysis.Document) string {
	var parts []string
	for _, f := range runFacts(doc) {
		parts = append(parts, f.Label+": "+f.Value)
	}
	return strings.Join(parts, " · ")
}

// startedText is a run's started_at for people, to the second in UTC
// ("2026-12-05 03:37:42 UTC"); as the document has it when it does not
// read as RFC 3339, "" when it has none.
func startedText(startedAt string) string {
	if startedAt == "" {
		return ""
	}
	t, err := time.Parse(time.RFC3339Nano, startedAt)
	if err != nil {
		return startedAt
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}
