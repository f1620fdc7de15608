package campaign

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
)

// trials is the most trials cell c takes: the campaign's trials for a
// trigger cell, one for a recovery-demand cell.
func (cp *campaign) trials(c cell) int {
	if c.kind != analysis.CellTrigger {
		return 1
	}
	return max(cp.scenario.Campaign.Trials, 1)
}

// oddsMode says the campaign records P(trap): with trials, or --tipping.
func (cp *campaign) oddsMode() bool {
	return cp.scenario.Campaign.Trials > 1 || cp.opts.Tipping
}

// odds tallies a repeated cell's trials.
type odds struct {
	k, n   int // trapped of the trials that could tell
	side   analysis.Side
	trials []analysis.CampaignTrial
	afails []float64
}

// add records one trial, tr as runCell made it, and returns the cell's
// record so far: tr's verdict, recovery, folder and note (the last
// trial's) with every trial, P(trap), the side and the median A_fail of
// the trapped trials.
func (o *odds) add(tr analysis.CampaignCell, seed uint64, level float64) analysis.CampaignCell {
	o.trials = append(o.trials, analysis.CampaignTrial{Trial: len(o.trials) + 1, Seed: seed, Verdict: tr.Verdict, Trapped: tr.Trapped,
		RecoveryS: tr.RecoveryS, AFail: tr.AFail, Folder: tr.Folder, Note: tr.Note})
	if tr.Trapped != nil {
		o.n++
		if *tr.Trapped {
			o.k++
			if tr.AFail != nil {
				o.afails = append(o.afails, *tr.AFail)
			}
		}
	}
	o.side = analysis.SequentialSide(o.k, o.n, level)
	rec := tr
	rec.Trials = slices.Clone(o.trials)
	rec.AFail = analysis.Num(analysis.Median(o.afails))
	rec.Trapped, rec.TrapProbability = nil, nil
	if o.n > 0 {
		p := analysis.NewProportion(o.k, o.n)
		rec.TrapProbability = &p
		rec.Side = o.side.String()
		yes, no := true, false
		switch o.side {
		case analysis.Above:
			rec.Trapped = &yes
		case analysis.Below:
			rec.Trapped = &no
		}
	}
	return rec
}

// placed is where the finished cell stands: with trials the sequential
// rule's side (nil when no trial could tell), with one its run's.
func (o *odds) placed(rec analysis.CampaignCell, trials int) *analysis.Side {
	side := analysis.Below
	switch {
	case trials > 1 && o.n == 0, trials <= 1 && rec.Trapped == nil:
		return nil
	case trials > 1:
		side = o.side
	case *rec.Trapped:
		side = analysis.Above
	}
	return &side
}

// withOdds adds to a finished trigger cell of one trial its P(trap) (one
// of one) and side, and to every cell the model's P(trap) for its
// scenario, the figure its runs' documents carry.
func (cp *campaign) withOdds(ctx context.Context, c cell, rec analysis.CampaignCell, side *analysis.Side) analysis.CampaignCell {
	if rec.Trials == nil && rec.Trapped != nil && side != nil {
		k := 0
		if *rec.Trapped {
			k = 1
		}
		p := analysis.NewProportion(k, 1)
		rec.TrapProbability, rec.Side = &p, side.String()
	}
	if p, err := cp.modelOdds(ctx, c.rho, c.rate, c.size); err != nil {
		rec.ModelNote = "the model's P(trap) not computed: " + err.Error()
	} else {
		rec.ModelTrapProbability = &p
	}
	return rec
}

// modelSection is the model's trap_probability section for the trigger
// cell of size at baseline rho (rate first attempts per second): the
// cell's scenario through convert.Test.TrapProbability, as plan and a
// run take it (seeds 1 … 200 of the request model within its work budget
// of simulated attempts). Each size is simulated once; the cell's trials
// are handed the same section, so their documents carry the same figure.
// test, when not nil, is the cell's scenario already converted.
func (cp *campaign) modelSection(ctx context.Context, rho, rate, size float64, test *convert.Test) (*analysis.TrapProbability, error) {
	key := [2]float64{rho, size}
	if sec, ok := cp.model[key]; ok {
		return sec, nil
	}
	if test == nil {
		cs, err := cp.cellScenario(cell{kind: analysis.CellTrigger, rho: rho, rate: rate, size: size})
		if err != nil {
			return nil, err
		}
		if test, err = convert.New(cs); err != nil {
			return nil, err
		}
	}
	sec, err := test.TrapProbability(ctx)
	if err != nil {
		return nil, err
	}
	if cp.model == nil {
		cp.model = map[[2]float64]*analysis.TrapProbability{}
	}
	cp.model[key] = sec
	return sec, nil
}

// modelOdds is modelSection's P(trap); an error says why there is none.
func (cp *campaign) modelOdds(ctx context.Context, rho, rate, size float64) (analysis.Proportion, error) {
	sec, err := cp.modelSection(ctx, rho, rate, size, nil)
	switch {
	case err != nil:
		return analysis.Proportion{}, err
	case sec.Trapped == nil:
		return analysis.Proportion{}, errors.New(sec.ModelUnavailable)
	}
	return *sec.Trapped, nil
}

// oddsPoints are baseline i's trigger cells as the fit takes them.
func (cp *campaign) oddsPoints(rho float64) []analysis.OddsPoint {
	var pts []analysis.OddsPoint
	for _, c := range cp.doc.Cells {
		if c.Kind != analysis.CellTrigger || c.Rho != rho || c.TrapProbability == nil {
			continue
		}
		side := analysis.Undecided
		switch c.Side {
		case analysis.Above.String():
			side = analysis.Above
		case analysis.Below.String():
			side = analysis.Below
		}
		pts = append(pts, analysis.OddsPoint{Size: c.Size, Trapped: c.TrapProbability.Count, Trials: c.TrapProbability.Of, Side: side})
	}
	return pts
}

// summarizeOdds fills baseline i's boundary at the level from its cells
// so far, and with trials judges the margin by it: the boundary's lower
// interval end or, while that is unknown, the largest size below the
// level, over expected_spike's size.
func (cp *campaign) summarizeOdds(i int) {
	if !cp.oddsMode() {
		return
	}
	b := &cp.doc.Baselines[i]
	level := cp.scenario.Campaign.TrapProbability
	if b.Odds == nil {
		b.Odds = &analysis.CampaignOdds{Level: level, ModelCurve: []analysis.ModelOddsPoint{}}
	}
	o := b.Odds
	pts := cp.oddsPoints(b.Rho)
	bd := analysis.BoundaryAtLevel(pts, level)
	o.Boundary, o.BoundaryLo, o.BoundaryHi = analysis.Num(bd.Size), analysis.Num(bd.Lo), analysis.Num(bd.Hi)
	o.Source, o.Fit, o.FitNote = bd.Source, bd.Fit, bd.FitNote
	o.Trials, o.Cells = 0, len(pts)
	for _, p := range pts {
		o.Trials += p.Trials
	}
	if cp.scenario.Campaign.Trials <= 1 {
		return
	}
	b.TriggerMargin = nil
	if known, expected := analysis.SurvivedAtLevel(bd, pts), cp.expectedSize(); expected > 0 && !math.IsNaN(known) {
		b.TriggerMargin = analysis.Num(known / expected)
	}
}

// modelGrid is how many sizes --tipping adds to the model's curve.
const modelGrid = 9

// maxModelSteps bounds the bisection of the model's odds; modelPrecision
// is the narrowest it asks for (the campaign's precision when narrower):
// the model's sizes cost no runs of the service.
const (
	maxModelSteps  = 20
	modelPrecision = 0.01
)

// modelAtLevel fills baseline i's model boundary at the level: the
// model's P(trap) at from and to, then bisection until the bracket is the
// campaign's precision narrow, the boundary interpolated between its
// ends, to the campaign's precision or 1 %, whichever is narrower; with
// --tipping also the model's odds on a grid over the range.
// Every size's odds are kept in the model's curve.
func (cp *campaign) modelAtLevel(ctx context.Context, i int) {
	if !cp.oddsMode() {
		return
	}
	cp.summarizeOdds(i)
	b := &cp.doc.Baselines[i]
	c := cp.scenario.Campaign
	o := b.Odds
	started := cp.opts.Now()
	curve := map[float64]analysis.Proportion{}
	p := func(size float64) (float64, error) {
		odds, err := cp.modelOdds(ctx, b.Rho, b.DemandPerS, size)
		if err != nil {
			return math.NaN(), err
		}
		curve[size] = odds
		return odds.P, nil
	}
	defer func() {
		o.ModelCurve = o.ModelCurve[:0]
		for size, odds := range curve {
			o.ModelCurve = append(o.ModelCurve, analysis.ModelOddsPoint{Size: size, TrapProbability: odds})
		}
		slices.SortFunc(o.ModelCurve, func(x, y analysis.ModelOddsPoint) int { return cmp.Compare(x.Size, y.Size) })
		o.ModelSeconds = cp.opts.Now().Sub(started).Seconds()
	}()
	if cp.opts.Tipping {
		for j := range modelGrid {
			size := c.From * math.Pow(c.To/c.From, float64(j)/(modelGrid-1))
			if _, err := p(size); err != nil {
				o.ModelNote = "the model's P(trap) not computed: " + err.Error()
				return
			}
		}
	}
	o.ModelBoundary, o.ModelNote = nil, ""
	size, note, err := analysis.BisectLevel(p, c.From, c.To, math.Min(c.Precision, modelPrecision), c.TrapProbability, maxModelSteps)
	switch {
	case err != nil:
		o.ModelNote = "the model's P(trap) not computed: " + err.Error()
	case note != "":
		o.ModelNote = note
	default:
		o.ModelBoundary = analysis.Num(size)
	}
}
