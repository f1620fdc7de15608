package referee

import (
	"math"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// unitReferee is a referee of a run with a 40 s spike from 0 s, an
// observation of ten minutes and the default recovery rule (0.99 held
// 10 s), with timeoutS as τ_out and no signal: the judging rules alone.
func unitReferee(timeoutS float64) *Referee {
	plan := analysis.Document{Scenario: analysis.ScenarioSection{DemandPerS: 50, CapacityPerS: 100, TimeoutS: timeoutS, ObserveS: 600,
		PatienceS: timeoutS, PatienceFrom: "the client timeout τ_out"}}
	r := New(plan, analysis.RefereeConfig{SuccessRatio: 0.99, HoldS: 10, ObserveS: 600, SpikeS: 40})
	r.SpikeStarted(0, 40)
	r.stage = stageObserve
	return r
}

// add appends rows to the referee as the run would.
func (r *Referee) addAll(rows ...analysis.TimelineRow) {
	for _, m := range rows {
		r.Add(m)
	}
}

// observeAt runs one observation step at now and says whether it ended
// the observation.
func (r *Referee) observeAt(now float64) bool {
	var d Decision
	r.observe(now, &d)
	return d.Over || d.StartOnTrap
}

// With a long client timeout, the first timeouts of a trigger complete only
// τ_out after the attempts that met the long wait: the seconds right after
// the spike can look healthy. They must not be taken for a recovery (or
// for no trigger at all).
func TestObserveWaitsOneTimeoutBeforeJudgingRecovery(t *testing.T) {
	r := unitReferee(30)
	// t0 = 30 s into the 40 s spike: attempts sent from 30 s on time out,
	// and those timeouts complete from 60 s on; until then every first
	// attempt that completes succeeded.
	for ts := 0.0; ts < 60; ts++ {
		r.Add(analysis.TimelineRow{TS: ts, Sent: 50, FirstOK: 50, FirstDone: 50, OK: 50})
	}
	if r.observeAt(59) {
		t.Fatalf("judged %s (%s) at 59 s, before the spike's timeouts could complete", r.verdict, r.reason)
	}
	for ts := 60.0; ts < 80; ts++ {
		r.Add(analysis.TimelineRow{TS: ts, Sent: 50, FirstDone: 50, Timeouts: 150, Retries: 100})
	}
	if r.observeAt(79) && r.verdict != analysis.VerdictTrapped {
		t.Errorf("judged %s (%s) while every attempt times out", r.verdict, r.reason)
	}
}

// Failures at warmup that are all refused connections mean the target is
// down: a harness error, not an overloaded baseline.
func TestBaselineFailing(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		ok, failed, refused  float64
		failing, targetIsOut bool
	}{
		{"healthy", 50, 0, 0, false, false},
		// One stray error in 500 is within the 0.99 threshold.
		{"a stray error", 499.0 / 10, 0.1, 0, false, false},
		{"overloaded", 30, 20, 0, true, false},
		{"target down", 0, 50, 50, true, true},
	} {
		r := New(analysis.Document{}, analysis.RefereeConfig{SuccessRatio: 0.99})
		for ts := 0.0; ts < 10; ts++ {
			r.Add(analysis.TimelineRow{TS: ts, Sent: tc.ok + tc.failed, FirstOK: tc.ok, FirstDone: tc.ok + tc.failed, FirstErrors: tc.failed - tc.refused, FirstConnect: tc.refused})
		}
		why, refused := r.baselineFailing()
		if (why != "") != tc.failing || refused != tc.targetIsOut {
			t.Errorf("%s: failing %q refused %v; want failing %v refused %v", tc.name, why, refused, tc.failing, tc.targetIsOut)
		}
	}
}

// The warmup lasts at least until the first attempts' outcomes can be
// known: a warmup no longer than the client timeout would have seen no
// failure from a target that never answers.
func TestWarmupOutlastsTheTimeout(t *testing.T) {
	plan := analysis.Document{Scenario: analysis.ScenarioSection{TimeoutS: 30}}
	if got := New(plan, analysis.RefereeConfig{WarmupS: 20}).WarmupEndS(); got != 32 {
		t.Errorf("warmup ends at %v s, want 32 (1 s + a 30 s timeout + 1 s)", got)
	}
	r := New(plan, analysis.RefereeConfig{WarmupS: 60, SuccessRatio: 0.99})
	if got := r.WarmupEndS(); got != 60 {
		t.Errorf("warmup ends at %v s, want the scenario's 60", got)
	}
	// Sent, and nothing completed: no healthy baseline to test against.
	for ts := 0.0; ts < 60; ts++ {
		r.Add(analysis.TimelineRow{TS: ts, Sent: 10})
	}
	d := r.Step(60)
	if o := r.Settle(analysis.JudgingEnd{AtS: 60}); !d.Over || o.Kind != KindBaselineFailing || !strings.Contains(o.Inconclusive, "none of the 600 first attempts") {
		t.Errorf("nothing completed: %+v, %+v", d, o)
	}
}

// failedRow is a second after the spike in which every first attempt
// failed; class sets how.
func failedRow(ts float64, class func(*analysis.TimelineRow)) analysis.TimelineRow {
	m := analysis.TimelineRow{TS: ts, Sent: 50, FirstDone: 50, Timeouts: 150, FirstTimeouts: 50}
	if class != nil {
		class(&m)
	}
	return m
}

// What the clients saw decides first: with no wait signal at all, first
// attempts still failing at baseline demand past the recovery budget make
// the run metastable (and end it), not inconclusive; before the budget
// has passed nothing is claimed.
func TestOutagePastTheBudgetIsMetastable(t *testing.T) {
	r := unitReferee(1)
	r.cfg.Gate.MaxRecoveryS = 60
	for ts := 0.0; ts < 40; ts++ {
		r.Add(analysis.TimelineRow{TS: ts, Sent: 50, FirstOK: 50, FirstDone: 50, OK: 50})
	}
	for ts := 40.0; ts < 99; ts++ {
		r.Add(failedRow(ts, nil))
	}
	if r.observeAt(99) || r.verdict != "" || r.observed != "" {
		t.Fatalf("at 59 s after the spike, within the budget: verdict %q, observed %q", r.verdict, r.observed)
	}
	r.addAll(failedRow(100, nil), failedRow(101, nil))
	if !r.observeAt(102) || r.verdict != analysis.VerdictMetastable {
		t.Fatalf("past the budget: verdict %q (%s), want metastable and the run over", r.verdict, r.reason)
	}
	for _, want := range []string{"past the recovery budget of 60.0 s", "no wait signal"} {
		if !strings.Contains(r.reason, want) {
			t.Errorf("reason %q lacks %q", r.reason, want)
		}
	}
	var doc analysis.Document
	r.Settle(analysis.JudgingEnd{AtS: 102})
	r.Fill(&doc)
	if doc.Gate.Passed || doc.Verdict != analysis.VerdictMetastable {
		t.Errorf("an outage past its budget: %s, gate passed %v", doc.Verdict, doc.Gate.Passed)
	}
}

// Without a budget the horizon is the budget: still failing at its end is
// an outage the clients saw; a service that came back before is not.
func TestOutageToTheEndWithoutABudget(t *testing.T) {
	r := unitReferee(1)
	for ts := 40.0; ts < 100; ts++ {
		r.Add(failedRow(ts, nil))
	}
	if why := r.observedOutage(false); why != "" {
		t.Errorf("mid-run, without a budget: %q", why)
	}
	if why := r.observedOutage(true); !strings.Contains(why, "still failing when the observation ended") {
		t.Errorf("at the end: %q", why)
	}
	r.Add(analysis.TimelineRow{TS: 100, Sent: 50, FirstOK: 50, FirstDone: 50})
	if why := r.observedOutage(true); why != "" {
		t.Errorf("back at the end: %q", why)
	}
}

// Client errors are the requests' fault: a run whose first attempts were
// answered 404 past the budget ends inconclusive, saying what they were,
// never metastable.
func TestClientErrorsAreNotAnOutage(t *testing.T) {
	notFound := func(m *analysis.TimelineRow) {
		m.FirstTimeouts, m.Timeouts, m.FirstErrors, m.FirstClientErrors, m.Errors = 0, 0, 50, 50, 50
	}
	judged := func(class func(*analysis.TimelineRow)) Outcome {
		r := unitReferee(1)
		r.cfg.Gate.MaxRecoveryS = 10
		for ts := 40.0; ts < 100; ts++ {
			r.Add(failedRow(ts, class))
			if r.observeAt(ts + 1) {
				break
			}
		}
		return r.Settle(analysis.JudgingEnd{AtS: 100, Horizon: "the load schedule ended"})
	}
	if o := judged(notFound); o.Kind != KindClientErrors || !strings.Contains(o.Inconclusive, "client error") {
		t.Errorf("404s: %+v", o)
	}
	// Answered 401 or 403: the credentials, said so.
	if o := judged(func(m *analysis.TimelineRow) { notFound(m); m.FirstAuth = 40 }); o.Kind != KindCredentialsRefused ||
		!strings.Contains(o.Inconclusive, "first attempts that failed after the spike were answered 401 or 403") {
		t.Errorf("401s: %+v", o)
	}
	r := unitReferee(1)
	for ts := 0.0; ts < 10; ts++ {
		r.Add(failedRow(ts, func(m *analysis.TimelineRow) { notFound(m); m.FirstAuth = 40 }))
	}
	if why := r.credentialsRefused(); !strings.Contains(why, "400 of the 500") {
		t.Errorf("in a warmup: %q", why)
	}
	// A few 4xx among timeouts do not make the failures the requests' own.
	r = unitReferee(1)
	for ts := 40.0; ts < 100; ts++ {
		r.Add(failedRow(ts, func(m *analysis.TimelineRow) { m.FirstClientErrors, m.FirstErrors = 5, 5 }))
	}
	if why, _ := r.clientFault(); why != "" {
		t.Errorf("a few 4xx among timeouts: %q", why)
	}
	if why := r.credentialsRefused(); why != "" {
		t.Errorf("no 401 or 403: %q", why)
	}
}

// Before the wait's trend at a held demand is judged, the run claims
// neither way: a run that ends right after on_trap rate began records a
// trend that is neither falling nor not falling.
func TestHeldTrendUnjudgedClaimsNothing(t *testing.T) {
	h := heldTrend(newOnTrap(12).held)
	if h.Falling || h.NotFalling || h.Slope != nil || h.Reason == "" {
		t.Errorf("an unjudged trend: %+v", h)
	}
}

var _ = math.NaN

// A wait that rises below the patience while first attempts succeed is no
// trap (a tracer wait of 1.7–2.1 s under a 3 s timeout after a spike that
// did trigger, a long hold not yet complete): the trend alone never makes
// one. The same rising wait
// above the patience, first attempts failing, does.
func TestARisingWaitIsNoTrapWhileFirstAttemptsSucceed(t *testing.T) {
	judged := func(wait0 float64, failing bool) (analysis.Verdict, string) {
		plan := analysis.Document{Scenario: analysis.ScenarioSection{DemandPerS: 40, CapacityPerS: 100, TimeoutS: 3, PatienceS: 3, PatienceFrom: "the client timeout τ_out"}}
		r := New(plan, analysis.RefereeConfig{SuccessRatio: 0.99, HoldS: 60, ObserveS: 600, SpikeS: 5, Metrics: true,
			Signals: []analysis.SignalInfo{{Name: "wait", ScrapeIntervalS: 1}}})
		r.SpikeStarted(35, 40)
		r.stage = stageObserve
		for ts := 0.0; ts < 70; ts++ {
			m := analysis.UnknownRow()
			m.TS, m.Sent, m.FirstDone, m.FirstOK = ts, 40, 40, 40
			if ts >= 40 {
				m.WaitS = wait0 + 0.02*(ts-40)
				if failing && ts >= 38 {
					m.FirstOK, m.FirstTimeouts = 0, 40
				}
			}
			if ts >= 38 && ts < 45 { // the spike triggered: failures until 45
				m.FirstOK, m.FirstTimeouts = 0, 40
			}
			r.Add(m)
			if ts >= 40 && r.observeAt(ts+1) {
				break
			}
		}
		return r.verdict, r.judgement.Reason
	}
	if v, why := judged(1.7, false); v != "" || !strings.Contains(why, "first attempts are succeeding") {
		t.Errorf("a wait rising below the patience, first attempts succeeding: %q (%s)", v, why)
	}
	if v, why := judged(4, true); v != analysis.VerdictTrapped {
		t.Errorf("a wait rising above the patience, first attempts failing: %q (%s)", v, why)
	}
}

// Contradictions are resolved in the text: a trapped service gets no
// predicted recovery from a formula whose queue would have recovered (a
// finding says so once), and a run without a trigger no recovery time.
func TestNoFigureContradictsTheVerdict(t *testing.T) {
	r := unitReferee(1)
	r.plan.Amplification = analysis.AmplificationSection{Client: 1, Predicted: 1}
	for ts := 0.0; ts < 100; ts++ {
		m := analysis.UnknownRow()
		m.TS, m.Sent, m.FirstDone, m.FirstOK = ts, 50, 50, 50
		if ts >= 20 {
			m.FirstOK, m.FirstTimeouts, m.Timeouts = 0, 50, 150
		}
		r.Add(m)
	}
	r.verdict, r.reason = analysis.VerdictTrapped, "the wait is not falling"
	r.Settle(analysis.JudgingEnd{AtS: 100})
	var doc analysis.Document
	r.Fill(&doc)
	o := doc.Observation
	if doc.Verdict != analysis.VerdictTrapped || o.PredictedRecoveryS != nil || !strings.Contains(strings.Join(o.Findings, "\n"), "yet the service is trapped") {
		t.Errorf("trapped: %s, predicted recovery %v, findings %q", doc.Verdict, analysis.Value(o.PredictedRecoveryS), o.Findings)
	}
	for _, e := range o.Estimates {
		if e.Name == "recovery_s" && strings.Contains(e.Note, "the formula at") {
			t.Errorf("the estimates still give the formula's recovery beside a trapped verdict: %q", e.Note)
		}
	}

	r = unitReferee(1)
	for ts := 0.0; ts < 100; ts++ {
		r.Add(analysis.TimelineRow{TS: ts, Sent: 50, FirstDone: 50, FirstOK: 50})
		if ts > 41 && r.observeAt(ts+1) {
			break
		}
	}
	r.Settle(analysis.JudgingEnd{AtS: 60})
	doc = analysis.Document{}
	r.Fill(&doc)
	if doc.Verdict != analysis.VerdictNoTrigger || doc.RecoveryS != nil {
		t.Errorf("no trigger: %s, recovery %v", doc.Verdict, analysis.Value(doc.RecoveryS))
	}
}

// slopeRun is A from the wait's slope, and why not, on a run with a
// spike from 15 to 20 s and a service wait from 20 s on (wait, rising by
// 1 ms/s), its first attempts failing after it or not, the served rate
// read (C measured) or not.
func slopeRun(wait float64, failing, served bool) (float64, string) {
	plan := analysis.Document{Scenario: analysis.ScenarioSection{DemandPerS: 40, CapacityPerS: 100, TimeoutS: 1, PatienceS: 1}}
	r := New(plan, analysis.RefereeConfig{SuccessRatio: 0.99, HoldS: 10, ObserveS: 60, SpikeS: 5, Metrics: true,
		Signals: []analysis.SignalInfo{{Name: "wait", ScrapeIntervalS: 1}}})
	r.SpikeStarted(15, 20)
	for ts := 0.0; ts < 40; ts++ {
		m := analysis.UnknownRow()
		m.TS, m.Sent, m.FirstDone, m.FirstOK = ts, 40, 40, 40
		if served {
			m.ServedPerS = 100
		}
		if ts >= 20 {
			m.WaitS = wait + 0.001*(ts-20)
			if failing {
				m.FirstOK, m.FirstTimeouts = 0, 40
			}
		}
		r.Add(m)
	}
	in := r.infer(40, r.judge(40, true, nil))
	return in.AFromSlope.Value, in.AFromSlopeNote
}

// A from the wait's slope stands only when the slope was fitted in a
// failed state: a flat wait far under the patience while first attempts
// succeed gives no A ((slope + 1)/ρ would be just 1/ρ), with the reason.
func TestAFromTheSlopeNeedsAFailedState(t *testing.T) {
	if a, why := slopeRun(0.01, false, true); !math.IsNaN(a) || !strings.Contains(why, "not fitted in a failed state") {
		t.Errorf("a flat wait of 0.01 s, first attempts succeeding: A from the slope %v (%q)", a, why)
	}
	if a, why := slopeRun(5, true, true); math.IsNaN(a) || why != "" {
		t.Errorf("a wait of 5 s, every first attempt failing: A from the slope %v (%q)", a, why)
	}
}

// A from the slope rests on C: with the scenario's C (no served rate read
// in a settled failed window) it is not reported (a service that serves
// less once failed read A = 4.57 for 3 that way).
func TestAFromTheSlopeNeedsAMeasuredCapacity(t *testing.T) {
	a, why := slopeRun(5, true, false)
	if !math.IsNaN(a) || !strings.Contains(why, "C is the scenario's") {
		t.Errorf("A from the slope %v (%q)", a, why)
	}
}
