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
