package runner

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
)

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
	r := unitRun(time.Second)
	r.inputs.Gate.MaxRecoveryS = 60
	for ts := 0.0; ts < 40; ts++ {
		r.rows = append(r.rows, analysis.TimelineRow{TS: ts, Sent: 50, FirstOK: 50, FirstDone: 50, OK: 50})
	}
	for ts := 40.0; ts < 99; ts++ {
		r.rows = append(r.rows, failedRow(ts, nil))
	}
	if r.observe(99) || r.verdict != "" || r.observed != "" {
		t.Fatalf("at 59 s after the spike, within the budget: ended %v, verdict %q, observed %q", r.verdict != "", r.verdict, r.observed)
	}
	r.rows = append(r.rows, failedRow(100, nil), failedRow(101, nil))
	if !r.observe(102) || r.verdict != analysis.VerdictMetastable {
		t.Fatalf("past the budget: verdict %q (%s), want metastable and the run over", r.verdict, r.reason)
	}
	for _, want := range []string{"past the recovery budget of 60.0 s", "no wait signal"} {
		if !strings.Contains(r.reason, want) {
			t.Errorf("reason %q lacks %q", r.reason, want)
		}
	}
	c := analysis.Conclude(analysis.GateSpec{MaxRecoveryS: 60}, analysis.Evidence{Verdict: r.verdict, RecoveryS: math.Inf(1), ProjectedRecoveryS: math.NaN()})
	if c.Gate.Passed {
		t.Error("the gate passed an outage past its budget")
	}
}

// Without a budget the horizon is the budget: still failing at its end is
// an outage the clients saw; a service that came back before is not.
func TestOutageToTheEndWithoutABudget(t *testing.T) {
	r := unitRun(time.Second)
	for ts := 40.0; ts < 100; ts++ {
		r.rows = append(r.rows, failedRow(ts, nil))
	}
	if why := r.observedOutage(false); why != "" {
		t.Errorf("mid-run, without a budget: %q", why)
	}
	if why := r.observedOutage(true); !strings.Contains(why, "still failing when the observation ended") {
		t.Errorf("at the end: %q", why)
	}
	r.rows = append(r.rows, analysis.TimelineRow{TS: 100, Sent: 50, FirstOK: 50, FirstDone: 50})
	if why := r.observedOutage(true); why != "" {
		t.Errorf("back at the end: %q", why)
	}
}

// Client errors are the requests' fault: first attempts answered 404 past
// the budget are no outage of the service, and the run says what they were.
func TestClientErrorsAreNotAnOutage(t *testing.T) {
	r := unitRun(time.Second)
	r.inputs.Gate.MaxRecoveryS = 10
	notFound := func(m *analysis.TimelineRow) {
		m.FirstTimeouts, m.Timeouts, m.FirstErrors, m.FirstClientErrors, m.Errors = 0, 0, 50, 50, 50
	}
	for ts := 40.0; ts < 100; ts++ {
		r.rows = append(r.rows, failedRow(ts, notFound))
	}
	if why := r.observedOutage(true); why != "" {
		t.Errorf("404s taken for an outage: %q", why)
	}
	if why, err := r.clientFault(); !strings.Contains(why, "3000 of the 3000 first attempts") || !strings.Contains(why, "client error") || err != ErrClientErrors {
		t.Errorf("client fault: %q, %v", why, err)
	}
	// Answered 401 or 403: the credentials, said so.
	r.rows = r.rows[:0]
	for ts := 40.0; ts < 100; ts++ {
		r.rows = append(r.rows, failedRow(ts, func(m *analysis.TimelineRow) { notFound(m); m.FirstAuth = 40 }))
	}
	if why := r.observedOutage(true); why != "" {
		t.Errorf("401s taken for an outage: %q", why)
	}
	if why, err := r.clientFault(); !strings.Contains(why, "2400 of the 3000 first attempts that failed after the spike were answered 401 or 403") || err != ErrCredentialsRefused {
		t.Errorf("credentials: %q, %v", why, err)
	}
	if why := r.credentialsRefused(); !strings.Contains(why, "2400 of the") {
		t.Errorf("in a warmup: %q", why)
	}
	// A few 4xx among timeouts do not make the failures the requests' own.
	r.rows = r.rows[:0]
	for ts := 40.0; ts < 100; ts++ {
		r.rows = append(r.rows, failedRow(ts, func(m *analysis.TimelineRow) { m.FirstClientErrors, m.FirstErrors = 5, 5 }))
	}
	if why, _ := r.clientFault(); why != "" {
		t.Errorf("a few 4xx among timeouts: %q", why)
	}
	if why := r.credentialsRefused(); why != "" {
		t.Errorf("no 401 or 403: %q", why)
	}
}
