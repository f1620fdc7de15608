package analysis

import (
	"math"
	"testing"
)

// syntheticRun builds the timeline of a trapped run at steady rates: λ
// first attempts/s, capacity c, the clients retrying up to A_client times
// and a hidden layer multiplying by hidden; every attempt fails from t0 on.
func syntheticRun(lambda, c, aClient, hidden, k float64, spikeStart, spikeEnd, end, t0 float64) []MeasuredSecond {
	var rows []MeasuredSecond
	for t := 0.0; t < end; t++ {
		rate := lambda
		if t >= spikeStart && t < spikeEnd {
			rate = k * lambda
		}
		r := MeasuredSecond{TS: t, Sent: rate, FirstDone: rate, FirstOK: rate, ServiceFirstPerS: rate, IngressPerS: rate,
			ServedPerS: math.Min(rate, c), WaitS: math.NaN(), AbandonedPerS: 0}
		if t >= spikeStart+t0 {
			r.FirstOK = 0
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

func TestInferTrapped(t *testing.T) {
	rows := syntheticRun(15, 100, 3, 3, 10, 10, 20, 40, 1)
	f := RunFacts{SpikeStartS: 10, SpikeEndS: 20, TimeoutS: 0.5, Multiplier: 10, T0S: 1, SettleS: 2, RateLagS: 3,
		FailedToS: 40, RecoveryS: math.NaN(), ScenarioCapacityPerS: 120}
	// A wait growing at A·ρ − 1 = 9·0.15 − 1 = 0.35 s/s after the spike.
	var wt, ww []float64
	for t := 20.0; t < 40; t++ {
		wt, ww = append(wt, t), append(ww, 50+0.35*(t-20))
	}
	in := Infer(rows, f, wt, ww)
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"λ", in.BaselinePerS, 15},
		{"k", in.Multiplier, 10},
		{"C (served, not the scenario's 120)", in.CapacityPerS, 100},
		{"ρ", in.Utilization, 0.15},
		{"A_client", in.AClient, 3},
		{"A_fail", in.AFail, 9},
		{"hidden", in.Hidden, 3},
		{"slope", in.WaitSlope, 0.35},
		{"A from slope", in.AFromSlope, 9},
	} {
		if !near(c.got, c.want, 1e-9) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if in.CapacitySource != "served" || !math.IsNaN(in.AFromRecovery) || !math.IsInf(in.PredictedRecoveryS, 1) {
		t.Errorf("source %q, A from recovery %v, predicted %v", in.CapacitySource, in.AFromRecovery, in.PredictedRecoveryS)
	}
	// Without the service's metrics, C falls back to the scenario and A_fail is unknown.
	for i := range rows {
		rows[i].IngressPerS, rows[i].ServiceFirstPerS, rows[i].ServedPerS = math.NaN(), math.NaN(), math.NaN()
	}
	in = Infer(rows, f, nil, nil)
	if in.CapacitySource != "scenario" || in.CapacityPerS != 120 || !math.IsNaN(in.AFail) || !near(in.AClient, 3, 1e-9) {
		t.Errorf("without service metrics: %+v", in)
	}
}

func TestFindRecoveryAndTriggered(t *testing.T) {
	rows := syntheticRun(50, 200, 3, 1, 5, 10, 20, 40, 4)
	// Recovery at 30: first attempts succeed again from there.
	for i := 30; i < 40; i++ {
		rows[i].FirstOK, rows[i].Timeouts = rows[i].FirstDone, 0
	}
	// A second without completions neither counts nor breaks the hold.
	rows[33].FirstDone, rows[33].FirstOK = 0, 0
	if at, ok := FindRecovery(rows, 20, 0.99, 5); !ok || at != 30 {
		t.Errorf("recovery at %v (%v), want 30", at, ok)
	}
	if _, ok := FindRecovery(rows, 20, 0.99, 20); ok {
		t.Error("a hold longer than the data must not be found")
	}
	// A dip breaks the hold and restarts it.
	rows[32].FirstOK = 0
	if at, ok := FindRecovery(rows, 20, 0.99, 5); !ok || at != 34 {
		t.Errorf("recovery after a dip at %v (%v), want 34", at, ok)
	}
	if !Triggered(rows, 10) || Triggered(rows[:14], 10) {
		t.Error("Triggered: timeouts from 14 on")
	}
}
