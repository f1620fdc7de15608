package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/trigger-test/trigger/analysis"
)

// curve is one tipping curve to measure: a setup and the loads, as
// fractions of λ_c, with the published probability of collapse where the
// published work states one (NaN where it does not).
type curve struct {
	Name      string
	Setup     setup
	Fractions []float64
	Published []float64
}

// point is one load of a measured curve.
type point struct {
	Fraction  float64             // load / λ_c
	Measured  analysis.Proportion // trials collapsed on the specimen
	Model     analysis.Proportion // runs collapsed in the request model
	Published float64             // NaN: none stated
	// MedianAtS is the median wall time to collapse of the trials that
	// collapsed, seconds; NaN when none did.
	MedianAtS float64
	// Void counts the trials voided because the driver stalled; each was
	// run again with the next seed.
	Void int
	// Floor is the loopback path's latency L₀ measured at this load and
	// added to the clients' timeout (measureFloor).
	Floor time.Duration
}

// Holds reports whether the published point lies in the measured interval
// (true when there is none).
func (p point) Holds() bool {
	return math.IsNaN(p.Published) || (p.Published >= p.Measured.Lo-1e-9 && p.Published <= p.Measured.Hi+1e-9)
}

// ModelHolds reports whether the model's fraction lies in the measured
// interval.
func (p point) ModelHolds() bool {
	return p.Model.P >= p.Measured.Lo-1e-9 && p.Model.P <= p.Measured.Hi+1e-9
}

// measure runs trials trials per load of c on fresh specimens, and the
// request model's modelRuns runs of the same setup, calling progress after
// each load.
func measure(ctx context.Context, c curve, trials, modelRuns int, progress func(point)) ([]point, error) {
	res, err := c.Setup.model(ctx, c.Fractions, modelRuns)
	if err != nil {
		return nil, err
	}
	lc := c.Setup.lambdaC()
	var out []point
	for j, f := range c.Fractions {
		s := c.Setup
		if s.Floor, err = measureFloor(ctx, f*lc); err != nil {
			return out, fmt.Errorf("%s at %.3g λ_c: %w", c.Name, f, err)
		}
		k, void := 0, 0
		var at []float64
		for i := 0; i < trials; {
			o, err := trial(ctx, s, f*lc, uint64(1000*(j+1)+i+void+1))
			if err != nil {
				return out, fmt.Errorf("%s at %.3g λ_c, trial %d: %w", c.Name, f, i+1, err)
			}
			if o.Stalled > 0 && void < maxVoid(trials) {
				void++
				continue
			}
			i++
			if o.Collapsed {
				k++
				at = append(at, o.AtS)
			}
		}
		mp := res.Points[j]
		p := point{Fraction: f, Measured: analysis.NewProportion(k, trials),
			Model: analysis.NewProportion(mp.Collapsed, mp.Runs), Published: c.Published[j], MedianAtS: median(at), Void: void, Floor: s.Floor}
		out = append(out, p)
		if progress != nil {
			progress(p)
		}
	}
	return out, nil
}

// maxVoid bounds the trials voided at one load: as many as are counted.
// Past it, a stalled trial counts as it came out.
func maxVoid(trials int) int { return trials }

// median of xs (NaN when empty); xs is reordered.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}
