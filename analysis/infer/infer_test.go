package infer

import (
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// syntheticRun builds the timeline of a trapped run at steady rates: λ
// first attempts/s, capacity c, the clients retrying up to A_client times
// and a hidden layer multiplying by hidden; every attempt fails from t0 on,
// timed out at the client. The service's rates are exact (no window).
func syntheticRun(lambda, c, aClient, hidden, k float64, spikeStart, spikeEnd, end, t0 float64) []analysis.TimelineRow {
	var rows []analysis.TimelineRow
	for t := 0.0; t < end; t++ {
		rate := lambda
		if t >= spikeStart && t < spikeEnd {
			rate = k * lambda
		}
		r := analysis.TimelineRow{TS: t, Sent: rate, FirstDone: rate, FirstOK: rate, ServiceFirstPerS: rate, IngressPerS: rate,
			ServedPerS: math.Min(rate, c), WaitS: math.NaN(), AbandonedPerS: 0, ErrorLatencyP50S: math.NaN()}
		if t >= spikeStart+t0 {
			r.FirstOK, r.FirstTimeouts = 0, rate
			r.Retries = rate * (aClient - 1)
			r.Timeouts = rate * aClient
			r.IngressPerS = rate * aClient * hidden
			r.ServedPerS = c
			r.AbandonedPerS = c
		}
		rows = append(rows, r)
	}
	return rows
}

// failedCohorts are the driver's cohorts of a run in which every attempt
// fails from fromS on: each request makes aClient attempts.
func failedCohorts(rows []analysis.TimelineRow, fromS, aClient float64) []Cohort {
	var out []Cohort
	for _, r := range rows {
		c := Cohort{TS: r.TS, First: r.Sent, Attempts: r.Sent, Succeeded: r.Sent}
		if r.TS >= fromS {
			c.Attempts, c.Succeeded = aClient*r.Sent, 0
		}
		out = append(out, c)
	}
	return out
}

func trappedFacts(rows []analysis.TimelineRow) RunFacts {
	return RunFacts{SpikeStartS: 10, SpikeEndS: 20, TimeoutS: 0.5, Multiplier: 10, RetrySettleS: 2, IngressLagS: 3, IngressRangeS: 3,
		IngressResolutionS: 1, FailedToS: 40, RecoveryS: math.NaN(), ScenarioCapacityPerS: 120, Cohorts: failedCohorts(rows, 11, 3)}
}

func TestInferTrapped(t *testing.T) {
	rows := syntheticRun(15, 100, 3, 3, 10, 10, 20, 40, 1)
	f := trappedFacts(rows)
	// The judged wait grows at A·ρ − 1 = 9·0.15 − 1 = 0.35 s/s after the spike.
	f.Wait = analysis.Judgement{Source: "service", Trend: analysis.Trend{N: 10, Slope: 0.35}, SlopeLo: 0.3, SlopeHi: 0.4}
	in := Infer(rows, f)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"λ", in.BaselinePerS, 15},
		{"k", in.Multiplier, 10},
		{"C (served, not the scenario's 120)", in.CapacityPerS, 100},
		{"ρ", in.Utilization, 0.15},
		{"A_client", in.AClient.Value, 3},
		{"A_fail", in.AFail.Value, 9},
		{"hidden", in.Hidden.Value, 3},
		{"slope", in.WaitSlope.Value, 0.35},
		{"A from slope", in.AFromSlope.Value, 9},
		{"A from slope, low end", in.AFromSlope.Lo, 1.3 / 0.15},
		// The failed window after the spike: from 20 + 2 + 3 to the end.
		{"failed from", in.FailedFromS, 24.5},
		{"failed to", in.FailedToS, 40},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if in.CapacitySource != "served" || in.AFromRecovery.Known() || !math.IsInf(in.PredictedRecoveryS.Value, 1) {
		t.Errorf("source %q, A from recovery %v, predicted %v", in.CapacitySource, in.AFromRecovery, in.PredictedRecoveryS)
	}
	// Exact rates: the interval of A_fail closes on 9.
	if !in.AFail.Bounded() || !near(in.AFail.Lo, 9, 1e-9) || !near(in.AFail.Hi, 9, 1e-9) {
		t.Errorf("A_fail interval %+v", in.AFail)
	}
	// The slope of ingress − served restates A_fail: A from the slope is not reported.
	f.Wait.Source = "ingress-served"
	if in := Infer(rows, f); in.AFromSlope.Known() || !in.WaitSlope.Known() {
		t.Errorf("ingress-served: A from slope %+v, slope %+v", in.AFromSlope, in.WaitSlope)
	}
	// Without the service's metrics, C falls back to the scenario and A_fail is unknown.
	for i := range rows {
		rows[i].IngressPerS, rows[i].ServiceFirstPerS, rows[i].ServedPerS = math.NaN(), math.NaN(), math.NaN()
	}
	in = Infer(rows, f)
	if in.CapacitySource != "scenario" || in.CapacityPerS != 120 || in.AFail.Known() || !near(in.AClient.Value, 3, 1e-9) {
		t.Errorf("without service metrics: %+v", in)
	}
}

// The staging stack of the field report: a 20 s rate window scraped every
// 5 s, no first-attempts query, the run judged and stopped soon after the
// spike. The ingress rate holds the spike's tenfold traffic for 20 s after
// it; divided by the driver's raw first attempts it read A_fail far off.
// Measured over the settled window against first attempts averaged over
// the same 20 s, it reads 9.
func TestInferFailedAmplificationIgnoresWindowsHoldingTheSpike(t *testing.T) {
	exact := syntheticRun(15, 100, 3, 3, 10, 10, 20, 80, 1)
	rows := make([]analysis.TimelineRow, len(exact))
	copy(rows, exact)
	for i := range rows {
		// A scrape every 5 s; at each, the mean over the last 20 s.
		scrape := i / 5 * 5
		var sum float64
		for j := max(0, scrape-19); j <= scrape; j++ {
			sum += exact[j].IngressPerS
		}
		rows[i].IngressPerS = sum / float64(scrape-max(0, scrape-19)+1)
		rows[i].ServiceFirstPerS = math.NaN()
	}
	f := trappedFacts(rows)
	f.FailedToS = 80
	f.IngressLagS, f.IngressRangeS, f.IngressResolutionS = 25, 20, 5
	in := Infer(rows, f)
	if !near(in.AFail.Value, 9, 0.03) {
		t.Errorf("A_fail = %.3f, want 9 ± 3 %%", in.AFail.Value)
	}
	if !in.AFail.Bounded() || in.AFail.Excludes(9) {
		t.Errorf("A_fail interval %+v must hold 9", in.AFail)
	}
	// With no lag the window holds the spike, and the estimate is off.
	f.IngressLagS = 0
	if bad := Infer(rows, f); near(bad.AFail.Value, 9, 0.1) {
		t.Errorf("without the lag A_fail = %.3f: the test no longer shows the bias", bad.AFail.Value)
	}
}

// A_client is counted by cohort: the attempts of the requests whose first
// attempt fell in the failed state, not the attempts sent in a window over
// the first attempts sent in it (which the edges of the window bias).
func TestInferClientAmplificationByCohort(t *testing.T) {
	rows := syntheticRun(50, 200, 3, 1, 5, 10, 20, 40, 2)
	f := trappedFacts(rows)
	f.Cohorts = failedCohorts(rows, 12, 3)
	// The last two seconds' requests were still open when the run stopped:
	// their attempts were cut short and must not count.
	for i := 38; i < 40; i++ {
		f.Cohorts[i].Attempts, f.Cohorts[i].Open = f.Cohorts[i].First, f.Cohorts[i].First
	}
	// One second in which a few requests succeeded at their last attempt.
	f.Cohorts[30].Succeeded, f.Cohorts[30].Attempts = 10, 2.8*f.Cohorts[30].First
	in := Infer(rows, f)
	if in.AClient.Value != 3 || !in.AClient.Bounded() || in.AClient.Lo != 3 {
		t.Errorf("A_client = %+v, want exactly 3", in.AClient)
	}
}

func TestFindRecoveryAndTriggered(t *testing.T) {
	rows := syntheticRun(50, 200, 3, 1, 5, 10, 20, 40, 4)
	// Recovery at 30: first attempts succeed again from there.
	for i := 30; i < 40; i++ {
		rows[i].FirstOK, rows[i].FirstTimeouts, rows[i].Timeouts = rows[i].FirstDone, 0, 0
	}
	// A second without completions neither counts nor breaks the hold.
	rows[33].FirstDone, rows[33].FirstOK = 0, 0
	if at, ok := FindRecovery(rows, 20, 0.99, 5); !ok || at != 30 {
		t.Errorf("recovery at %v (%v), want 30", at, ok)
	}
	if _, ok := FindRecovery(rows, 20, 0.99, 20); ok {
		t.Error("a hold longer than the data must not be found")
	}
	// A relapse breaks the hold and restarts it.
	rows[32].FirstOK = 0
	if at, ok := FindRecovery(rows, 20, 0.99, 5); !ok || at != 34 {
		t.Errorf("recovery after a relapse at %v (%v), want 34", at, ok)
	}
	if !Triggered(rows, 10, 0.99) || Triggered(rows[:14], 10, 0.99) {
		t.Error("Triggered: failures from 14 on")
	}
}

// A failure is a failure: first attempts answered 504 by a proxy before
// the client's timeout trigger like timeouts do, and place t0 by their own
// latency; one stray failure in a healthy second does not.
func TestTriggeredAndT0ByEveryFailureClass(t *testing.T) {
	healthy := analysis.TimelineRow{TS: 12, FirstDone: 50, FirstOK: 50, ErrorLatencyP50S: math.NaN()}
	stray := healthy
	stray.TS, stray.FirstOK, stray.FirstErrors, stray.ErrorLatencyP50S = 13, 49.6, 0.4, 0.05
	for _, tc := range []struct {
		name      string
		fail      func(*analysis.TimelineRow)
		triggered bool
		t0        float64
	}{
		{"timeouts", func(m *analysis.TimelineRow) { m.FirstOK, m.FirstTimeouts = 10, 40 }, true, 14.5 - 1 - 10},
		{"proxy 504 after 0.9 s", func(m *analysis.TimelineRow) { m.FirstOK, m.FirstErrors, m.ErrorLatencyP50S = 0, 50, 0.9 }, true, 14.5 - 0.9 - 10},
		{"connections refused", func(m *analysis.TimelineRow) { m.FirstOK, m.FirstConnect = 0, 50 }, true, 14.5 - 10},
		{"healthy", func(*analysis.TimelineRow) {}, false, math.NaN()},
	} {
		failed := healthy
		failed.TS = 14
		tc.fail(&failed)
		rows := []analysis.TimelineRow{healthy, stray, failed}
		if got := Triggered(rows, 10, 0.99); got != tc.triggered {
			t.Errorf("%s: triggered %v, want %v", tc.name, got, tc.triggered)
		}
		if got := firstFailure(rows, 10, 1, 0.99); !(near(got, tc.t0, 1e-9) || math.IsNaN(got) && math.IsNaN(tc.t0)) {
			t.Errorf("%s: t0 %v, want %v", tc.name, got, tc.t0)
		}
	}
}

func near(got, want, relTol float64) bool {
	if math.IsInf(want, 0) {
		return got == want
	}
	return math.Abs(got-want) <= relTol*math.Max(math.Abs(want), 1e-12)
}

// After a fault, C is the served rate at full capacity: the failed window
// during the fault (the service serving C′) is left out of it, or ρ
// measured against C′ would project that the service never recovers.
func TestCapacityAfterAFaultLeavesTheFaultOut(t *testing.T) {
	var rows []analysis.TimelineRow
	for ts := 0.0; ts < 40; ts++ {
		served := 200.0
		if ts >= 10 && ts < 20 {
			served = 80 // the fault: C′ = 0.4·C
		}
		ok := 100.0
		if ts >= 12 && ts < 30 {
			ok = 0
		}
		rows = append(rows, analysis.TimelineRow{TS: ts, Sent: 100, FirstOK: ok, FirstDone: 100, IngressPerS: 100, ServedPerS: served})
	}
	f := RunFacts{SpikeStartS: 10, SpikeEndS: 20, TimeoutS: 1, SuccessRatio: 0.99, FailedToS: 40, IngressLagS: 2, ScenarioCapacityPerS: 200, ScenarioDemandPerS: 100}
	if c := Infer(rows, f).CapacityPerS; c > 150 {
		t.Fatalf("without a fault the fault's served rate counts: C = %.0f; the test's rows do not exercise the fault window", c)
	}
	f.FaultCapacity = 0.4
	if in := Infer(rows, f); in.CapacityPerS != 200 || in.CapacitySource != "served" {
		t.Errorf("after a fault C = %.0f (%s), want the served rate after it, 200", in.CapacityPerS, in.CapacitySource)
	}
}

// One stray failure at a low rate does not restart the hold: a long hold
// at 40 first attempts a second, one of which timed out in one second,
// holds at 0.99 taken over the hold (it restarted, and the run ended
// inconclusive "still failing" with 99.9 % succeeding). A second that
// fails more than the rule allows over the whole hold still breaks it.
func TestFindRecoveryToleratesAStrayFailure(t *testing.T) {
	var rows []analysis.TimelineRow
	for ts := 0.0; ts < 100; ts++ {
		rows = append(rows, analysis.TimelineRow{TS: ts, FirstDone: 40, FirstOK: 40})
	}
	for _, ts := range []int{30, 61, 85} {
		rows[ts].FirstOK, rows[ts].FirstTimeouts = 39, 1
	}
	if at, ok := FindRecovery(rows, 10, 0.99, 60); !ok || at != 10 {
		t.Errorf("three stray timeouts in 2400 first attempts: recovery at %v (%v), want 10", at, ok)
	}
	// A start that itself fails the rule is no recovery yet.
	rows[10].FirstOK = 30
	if at, ok := FindRecovery(rows, 10, 0.99, 60); !ok || at != 11 {
		t.Errorf("a failing first second: recovery at %v (%v), want 11", at, ok)
	}
	// Five seconds fully failed in the hold: 200 of 2400, more than 1 %.
	for ts := 40; ts < 45; ts++ {
		rows[ts].FirstOK, rows[ts].FirstTimeouts = 0, 40
	}
	if at, ok := FindRecovery(rows, 10, 0.99, 60); ok {
		t.Errorf("a five-second relapse held: recovery at %v", at)
	}
}

// The capacity's note says why the scenario's value was taken: "no served
// query" only when there is none.
func TestCapacityNoteSaysWhy(t *testing.T) {
	rows := []analysis.TimelineRow{{TS: 0, Sent: 10, FirstDone: 10, FirstOK: 10, ServedPerS: math.NaN()}, {TS: 1, Sent: 10, FirstDone: 10, FirstOK: 10, ServedPerS: math.NaN()}}
	f := RunFacts{SpikeStartS: 1, SpikeEndS: 2, TimeoutS: 1, FailedToS: 2, ScenarioCapacityPerS: 100, ScenarioDemandPerS: 10}
	if in := Infer(rows, f); in.CapacitySource != "scenario" || !strings.Contains(in.CapacityNote, "no served query") {
		t.Errorf("without a served column: %s, %q", in.CapacitySource, in.CapacityNote)
	}
	rows[0].ServedPerS, rows[1].ServedPerS = 10, 10
	if in := Infer(rows, f); in.CapacitySource != "scenario" || strings.Contains(in.CapacityNote, "no served query") || in.CapacityNote == "" {
		t.Errorf("with a served column but no failed window: %s, %q", in.CapacitySource, in.CapacityNote)
	}
}
