package fluid

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// sampleAccumulator sums one timeline interval of steps and turns it into
// a TimelineRow.
type sampleAccumulator struct {
	steps, count int
	dt           float64
	cur          analysis.RowCounts
	start        float64    // start time of the current sample
	spike        [2]float64 // the spike's start and end, seconds
	slab         []float64  // backing store for the rows' AttemptsPerS
	peak         float64
}

func newSampleAccumulator(maxRetries, steps int, dt, spikeStartS, spikeEndS float64) *sampleAccumulator {
	return &sampleAccumulator{steps: steps, dt: dt, spike: [2]float64{spikeStartS, spikeEndS},
		cur: analysis.RowCounts{Attempts: make([]float64, maxRetries+1)}}
}

func (a *sampleAccumulator) add(step int, offered []float64, refused, timedOut, firstRefused, firstTimedOut, dropped, served, abandoned, goodput, gaveUp, wait float64) {
	c := &a.cur
	if a.count == 0 {
		a.start = float64(step) * a.dt
	}
	for j, v := range offered {
		c.Attempts[j] += v
	}
	c.Refused += refused
	c.TimedOut += timedOut
	c.FirstRefused += firstRefused
	c.FirstTimedOut += firstTimedOut
	c.Dropped += dropped
	c.Served += served
	c.Abandoned += abandoned
	c.Goodput += goodput
	c.GaveUp += gaveUp
	c.Wait = wait
	c.MaxWait = math.Max(c.MaxWait, wait)
	a.peak = math.Max(a.peak, wait)
	a.count++
}

func (a *sampleAccumulator) full() bool { return a.count == a.steps }

// flush turns the sums into a row of per-second rates and starts the next
// sample.
func (a *sampleAccumulator) flush() analysis.TimelineRow {
	n := len(a.cur.Attempts)
	if len(a.slab) < n {
		a.slab = make([]float64, 1024*n)
	}
	row := a.cur.Row(a.start, float64(a.count)*a.dt, a.spike[0], a.spike[1], a.slab[:n:n])
	a.slab = a.slab[n:]
	a.cur.Reset()
	a.count = 0
	return row
}
