package referee

import (
	"fmt"

	"github.com/trigger-test/trigger/analysis"
)

// Replay judges a recorded run again: plan is the run's result document
// (its plan's sections are what the referee reads of it), rec what the
// referee read besides the rows (doc.Judging), rows the run's timeline.
// The rows are fed in order, each judged as the live run judged it (the
// first rec.Stepped), the runner's events told at the row they came
// after, and the run settled as it ended: the same referee on the same
// input, so the same verdict, reason and figures.
func Replay(plan analysis.Document, rec analysis.JudgingRecord, rows []analysis.TimelineRow) (*Referee, Outcome, error) {
	if rec.Version != analysis.JudgingVersion {
		return nil, Outcome{}, fmt.Errorf("the run was judged under the referee's rules of version %d; this trigger judges under version %d and cannot give the same verdict", rec.Version, analysis.JudgingVersion)
	}
	if why := badConfig(rec.Config); why != "" {
		return nil, Outcome{}, fmt.Errorf("the record's config %s: no run judges so", why)
	}
	if len(rows) < rec.Rows {
		return nil, Outcome{}, fmt.Errorf("the timeline has %d rows; the run's referee read %d", len(rows), rec.Rows)
	}
	plan.Observation, plan.Judging = nil, nil
	r := New(plan, rec.Config)
	events := rec.Events
	tell := func(read int) error {
		for len(events) > 0 && events[0].Rows <= read {
			e := events[0]
			events = events[1:]
			switch e.Kind {
			case analysis.EventSpike:
				r.SpikeStarted(e.AtS, e.EndS)
			case analysis.EventFaultStarted:
				r.FaultStarted(e.AtS)
			case analysis.EventFaultStopped:
				r.FaultStopped(e.AtS)
			case analysis.EventOnTrap:
				r.OnTrapStarted(e.AtS)
			case analysis.EventScrape:
				r.Rescraped(e.Signal, e.ScrapeS, e.ScrapeFrom)
			default:
				return fmt.Errorf("the record has an event of an unknown kind %q", e.Kind)
			}
		}
		return nil
	}
	if err := tell(0); err != nil {
		return nil, Outcome{}, err
	}
	for i := range rec.Rows {
		row := r.Add(rows[i])
		if i < rec.Stepped {
			r.Step(row.TS + 1)
		}
		if err := tell(i + 1); err != nil {
			return nil, Outcome{}, err
		}
	}
	return r, r.Settle(rec.End), nil
}

// badConfig says what in a recorded config no run can have written ("" when
// nothing): a success ratio outside (0, 1], a negative duration. A record
// edited so would judge the same rows under a rule the run never had.
func badConfig(c analysis.RefereeConfig) string {
	switch {
	case !(c.SuccessRatio > 0 && c.SuccessRatio <= 1):
		return fmt.Sprintf("has success_ratio = %g, outside (0, 1]", c.SuccessRatio)
	case c.HoldS < 0 || c.WarmupS < 0 || c.SpikeS < 0 || c.ObserveS < 0 || c.FaultS < 0 || c.RetrySettleS < 0 || c.TracerTimeoutS < 0:
		return "has a negative duration"
	case c.Gate.MaxRecoveryS < 0 || c.Gate.MaxAmplification < 0:
		return "has a negative gate"
	}
	for _, q := range c.Signals {
		if q.RangeS < 0 || q.OffsetS < 0 || q.ScrapeIntervalS < 0 {
			return fmt.Sprintf("gives signal %q a negative window", q.Name)
		}
	}
	if o := c.OnTrap; o != nil && (o.ObserveS < 0 || o.RatePerS < 0) {
		return "has a negative on_trap"
	}
	return ""
}
