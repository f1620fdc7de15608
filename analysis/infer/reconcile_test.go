package infer

import (
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// capCounters makes the service's ingress counter count what its worker
// handles, as an application's own counter does: ingress = served = C
// whenever the service is busy.
func capCounters(rows []analysis.TimelineRow, c float64) {
	for i := range rows {
		rows[i].IngressPerS = math.Min(rows[i].IngressPerS, c)
		rows[i].ServedPerS = rows[i].IngressPerS
	}
}

// A counter behind the queue reads C/λ, whatever A is: trapped at A = 3,
// ρ = 0.4, it reads 2.5. It is no measurement: A_fail is unknown, the note
// says why and what to count instead, C/λ is kept as the lower bound it is
// for a trapped service, no hidden factor is claimed, and the A the run
// stands by is the clients' own count (the scenario declares no layer
// beyond them: no inference overrides what the driver counts), or the
// slope's when a layer is declared.
func TestCounterBehindTheQueueIsABound(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	capCounters(rows, 100)
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.PatienceS, f.TimeoutS, f.Trapped = 15, 60, 1, 1, true
	f.Cohorts = failedCohorts(rows, 11, 3)
	f.Wait = analysis.Judgement{Source: "tracers", Trend: analysis.Trend{N: 10, Slope: 0.2}, SlopeLo: 0.15, SlopeHi: 0.25}
	in := Infer(rows, f)
	if in.AFail.Known() || in.Hidden.Known() {
		t.Fatalf("A_fail %+v, hidden %+v: a counter behind the queue measures neither", in.AFail, in.Hidden)
	}
	if !near(in.AFailCounted.Value, 2.5, 1e-9) || !near(in.AFailAtLeast, 2.5, 1e-9) || !math.IsNaN(in.AFailAtMost) {
		t.Errorf("counted %v, at least %v, at most %v; want 2.5, 2.5, NaN", in.AFailCounted.Value, in.AFailAtLeast, in.AFailAtMost)
	}
	for _, want := range []string{"behind its queue", "A_fail ≥ C/λ = 2.50", "trigger_attempts_sent_total"} {
		if !strings.Contains(in.AFailNote, want) {
			t.Errorf("note %q lacks %q", in.AFailNote, want)
		}
	}
	if in.AFrom != FromClients || !near(in.A.Value, 3, 1e-9) || in.PredictedFrom != FromClients || strings.Contains(in.ANote, "disagree") {
		t.Errorf("A stands from %q = %v (predicted from %q; %s), want the clients' own 3, the slope agreeing", in.AFrom, in.A.Value, in.PredictedFrom, in.ANote)
	}
	// With a layer declared beyond the clients, the driver cannot know A:
	// the slope's inference stands.
	f.ScenarioAmplification = 6
	if in := Infer(rows, f); in.AFrom != FromSlope || !near(in.A.Value, 3, 1e-9) {
		t.Errorf("a declared layer: A stands from %q = %v, want the slope's 3", in.AFrom, in.A.Value)
	}
	f.ScenarioAmplification = f.ClientAmplification
	// Recovered, the same reading is an upper bound.
	f.Trapped, f.RecoveryS = false, 30
	if in := Infer(rows, f); !near(in.AFailAtMost, 2.5, 1e-9) || !math.IsNaN(in.AFailAtLeast) {
		t.Errorf("recovered: at most %v, at least %v", in.AFailAtMost, in.AFailAtLeast)
	}
	// A counter before the queue is a measurement.
	rows = syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	f.Trapped, f.RecoveryS = true, math.NaN()
	if in := Infer(rows, f); !near(in.AFail.Value, 3, 1e-9) || in.AFailNote != "" || !near(in.Hidden.Value, 1, 1e-9) {
		t.Errorf("before the queue: A_fail %v, note %q, hidden %v", in.AFail.Value, in.AFailNote, in.Hidden.Value)
	}
	// Failures at the door need no queue: a counter that stays with served
	// while every failure is a 503 is not called blind.
	rows = syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	capCounters(rows, 100)
	for i := range rows {
		rows[i].Rejected, rows[i].Timeouts = rows[i].Timeouts, 0
	}
	// (It counts fewer attempts than the clients sent, though: those the
	// door refused before it, reported as lost and never as a factor.)
	if in := Infer(rows, f); strings.Contains(in.AFailNote, "behind") || in.AFail.Known() || !near(in.LostBeforeCounter, 1-2.5/3, 1e-9) || in.Hidden.Known() {
		t.Errorf("refusals at the door: A_fail %v, note %q, lost %v, hidden %v", in.AFail.Value, in.AFailNote, in.LostBeforeCounter, in.Hidden.Value)
	}
}

// Tracers reach the service beside the clients' attempts: 4 tracers/s
// through a layer that multiplies by 2 add 8/s to the ingress; A_fail
// leaves them out. (A·λ = 120/s, clear of C: a counter before the queue.)
func TestAFailLeavesTracersOut(t *testing.T) {
	rows := syntheticRun(20, 100, 3, 2, 10, 10, 20, 60, 1)
	for i := range rows {
		rows[i].TracersSent = 4
		if rows[i].TS >= 11 {
			rows[i].IngressPerS += 4 * 2
		}
	}
	f := trappedFacts(rows)
	f.FailedToS = 60
	if in := Infer(rows, f); !near(in.AFail.Value, 6, 1e-9) || !near(in.Hidden.Value, 2, 1e-9) {
		t.Errorf("A_fail %v, hidden %v; want 6 and 2", in.AFail.Value, in.Hidden.Value)
	}
}

// A hidden factor below 1 is attempts lost before the counter, never a
// layer; one that another estimate contradicts is not claimed; the
// disagreement is named with the estimate that stands.
func TestHiddenFactorIsClaimedOnlyWhenTheEstimatesAgree(t *testing.T) {
	rows := syntheticRun(15, 100, 3, 0.6, 10, 10, 20, 60, 1)
	f := trappedFacts(rows)
	f.FailedToS = 60
	in := Infer(rows, f)
	if in.Hidden.Known() || !strings.Contains(in.HiddenNote, "never reached the counter") || in.AFail.Known() || !near(in.LostBeforeCounter, 0.4, 1e-9) ||
		!strings.Contains(in.AFailNote, "40 % of their attempts were lost before it") {
		t.Errorf("hidden %v, note %q, A_fail %v (%q), lost %v", in.Hidden.Value, in.HiddenNote, in.AFail.Value, in.AFailNote, in.LostBeforeCounter)
	}
	rows = syntheticRun(15, 100, 3, 3, 10, 10, 20, 60, 1)
	// The slope says A = (0.05 + 1)/0.15 = 7, outside A_fail = 9.
	f.Wait = analysis.Judgement{Source: "service", Trend: analysis.Trend{N: 10, Slope: 0.05}, SlopeLo: 0.04, SlopeHi: 0.06}
	in = Infer(rows, f)
	if in.Hidden.Known() || !strings.Contains(in.HiddenNote, "disagrees with A from the wait's slope") {
		t.Errorf("hidden %v, note %q", in.Hidden.Value, in.HiddenNote)
	}
	if in.AFrom != FromAFail || !strings.Contains(in.ANote, "stands") || !strings.Contains(in.ANote, "A from the wait's slope = 7.00") {
		t.Errorf("A from %q: %q", in.AFrom, in.ANote)
	}
}

// A from the slope reads λ over the seconds the slope measured: a wait
// fitted over a few seconds in which Poisson arrivals ran 20 % above the
// baseline's mean grows at (A·1.2λ − C)/C, and dividing by the mean λ read
// A 20 % high. The window's own λ (and the tracers' share) gives A back.
func TestSlopeAmplificationUsesTheWindowsArrivals(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	for i := range rows {
		rows[i].TracersSent = 4
		if rows[i].TS >= 15 && rows[i].TS < 22 {
			rows[i].Sent = 48
		}
	}
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.RetrySettleS = 15, 60, 2
	// (3 × 48 + 4 − 100)/100 = 0.48 s/s, fitted over 17–21 s.
	f.Wait = analysis.Judgement{Source: "tracers", Trend: analysis.Trend{N: 5, Slope: 0.48}, SlopeLo: 0.4, SlopeHi: 0.56, FitFromS: 17, FitToS: 21}
	in := Infer(rows, f)
	if !near(in.AFromSlope.Value, 3, 1e-9) || !(in.AFromSlope.Lo < 3 && in.AFromSlope.Hi > 3) {
		t.Errorf("A from the slope %+v, want 3 inside its interval", in.AFromSlope)
	}
	// The mean λ over the whole baseline would have read it high.
	if naive := (0.48 + 1) / in.Utilization; near(naive, 3, 0.1) {
		t.Errorf("the test no longer shows the bias: (slope + 1)/ρ = %.2f", naive)
	}
}

// An A inferred below the clients' own attempts per request contradicts
// the driver's exact count (layers only multiply): it never stands, and
// the note says why ("A from the recovery time = 1.51 stands" for clients
// making 3 attempts).
func TestNoInferenceBelowTheClientsOwnA(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	for i := range rows {
		rows[i].IngressPerS = math.NaN() // no ingress query: no A_fail
	}
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.PatienceS, f.TimeoutS, f.Trapped = 15, 60, 1, 1, false
	f.Cohorts = failedCohorts(rows, 11, 3)
	f.ScenarioAmplification = 6 // a declared layer: the driver cannot know A
	f.Wait = analysis.Judgement{Source: "tracers", Trend: analysis.Trend{N: 10, Slope: -0.4}, SlopeLo: -0.45, SlopeHi: -0.35}
	in := Infer(rows, f)
	if in.AFrom == FromSlope || !strings.Contains(in.ANote, "below the clients' own 3.00") {
		t.Errorf("A from a slope of -0.4 at ρ = 0.4 (1.5) stands as %q = %v: %s", in.AFrom, in.A.Value, in.ANote)
	}
}

// A counter that, over the settled failed window of a service that did
// not recover, reads what the service served (while over the spike it ran
// ahead of it: a proxy counts until it saturates) counts behind the queue:
// A_fail is a bound, not a measurement.
func TestCounterAtServedInTheFailedWindow(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	for i := range rows {
		if rows[i].TS >= 20 {
			rows[i].IngressPerS = rows[i].ServedPerS * 1.02
		}
	}
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.PatienceS, f.TimeoutS, f.Trapped = 15, 60, 1, 1, true
	in := Infer(rows, f)
	if in.AFail.Known() || !strings.Contains(in.AFailNote, "within 5 %") || !(in.AFailAtLeast > 2) {
		t.Errorf("A_fail %v, at least %v, note %q", in.AFail.Value, in.AFailAtLeast, in.AFailNote)
	}
	// Recovered, the same counter says nothing new: it is not judged.
	f.Trapped, f.RecoveryS = false, 30
	if in := Infer(rows, f); strings.Contains(in.AFailNote, "within 5 %") {
		t.Errorf("recovered: %q", in.AFailNote)
	}
}

// Clients that retry, whose every cohort had a success (a short failed
// state): the driver counted no A_client, so nothing stands as "the
// clients' own A" (it read 0.00 once).
func TestNoClientsOwnAWithoutTheirCount(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	for i := range rows {
		rows[i].IngressPerS = math.NaN()
	}
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.Trapped, f.RecoveryS = 15, 60, false, 5
	f.Cohorts = nil
	in := Infer(rows, f)
	if in.AFrom == FromClients || (in.A.Known() && in.A.Value == 0) || in.PredictedFrom == FromClients {
		t.Errorf("A stands from %q = %v, predicted from %q", in.AFrom, in.A.Value, in.PredictedFrom)
	}
}

// A first-attempt series that counts half the first attempts the driver
// sent (a label the server sets on some calls only) doubles ingress over
// it: A_fail 6 for clients making 3 attempts, with no layer. It is not a
// measurement, and no hidden factor is claimed from it; a hidden layer
// that really doubles the attempts, with every first attempt counted,
// stays one.
func TestFirstAttemptSeriesThatMissesAttemptsIsNoMeasurement(t *testing.T) {
	rows := syntheticRun(40, 100, 3, 1, 4, 10, 15, 60, 1)
	for i := range rows {
		rows[i].ServiceFirstPerS /= 2
	}
	f := trappedFacts(rows)
	f.SpikeEndS, f.FailedToS, f.PatienceS, f.TimeoutS, f.Trapped = 15, 60, 1, 1, true
	f.Cohorts = failedCohorts(rows, 11, 3)
	in := Infer(rows, f)
	if in.AFail.Known() || in.Hidden.Known() || !strings.Contains(in.AFailNote, "counted 50 % of the first attempts") {
		t.Errorf("A_fail %v (%q), hidden %v; want neither, the series named", in.AFail.Value, in.AFailNote, in.Hidden.Value)
	}
	rows = syntheticRun(40, 100, 3, 2, 4, 10, 15, 60, 1)
	if in := Infer(rows, f); !near(in.AFail.Value, 6, 1e-9) || !near(in.Hidden.Value, 2, 1e-9) {
		t.Errorf("a real hidden layer: A_fail %v, hidden %v; want 6 and 2", in.AFail.Value, in.Hidden.Value)
	}
}

// An A from the slope at or below zero is no amplification: withheld with
// the reason (a field run read −0.32 on a service losing capacity); a
// positive one stands.
func TestNoAmplificationFromANegativeSlope(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want bool
	}{{-0.32, true}, {0, true}, {0.05, false}, {3, false}, {math.NaN(), false}} {
		iv := Interval{Value: c.v, Lo: c.v - 0.1, Hi: c.v + 0.1, N: 3}
		if got := noAmplification(iv) != ""; got != c.want {
			t.Errorf("A = %v: withheld %v, want %v", c.v, got, c.want)
		}
	}
}
