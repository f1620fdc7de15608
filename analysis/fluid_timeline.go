package analysis

import "math"

// sampleAccumulator sums one timeline interval of steps and turns it into
// a TimelineRow.
type sampleAccumulator struct {
	steps, count int
	dt           float64
	cur          rowCounts
	start        float64    // start time of the current sample
	spike        [2]float64 // the spike's start and end, seconds
	slab         []float64  // backing store for the rows' AttemptsPerS
	peak         float64
}

func newSampleAccumulator(maxRetries, steps int, dt, spikeStartS, spikeEndS float64) *sampleAccumulator {
	return &sampleAccumulator{steps: steps, dt: dt, spike: [2]float64{spikeStartS, spikeEndS},
		cur: rowCounts{attempts: make([]float64, maxRetries+1)}}
}

func (a *sampleAccumulator) add(step int, offered []float64, refused, timedOut, firstRefused, firstTimedOut, dropped, served, abandoned, goodput, gaveUp, wait float64) {
	c := &a.cur
	if a.count == 0 {
		a.start = float64(step) * a.dt
	}
	for j, v := range offered {
		c.attempts[j] += v
	}
	c.refused += refused
	c.timedOut += timedOut
	c.firstRefused += firstRefused
	c.firstTimedOut += firstTimedOut
	c.dropped += dropped
	c.served += served
	c.abandoned += abandoned
	c.goodput += goodput
	c.gaveUp += gaveUp
	c.wait = wait
	c.maxWait = math.Max(c.maxWait, wait)
	a.peak = math.Max(a.peak, wait)
	a.count++
}

func (a *sampleAccumulator) full() bool { return a.count == a.steps }

// flush turns the sums into a row of per-second rates and starts the next
// sample.
func (a *sampleAccumulator) flush() TimelineRow {
	n := len(a.cur.attempts)
	if len(a.slab) < n {
		a.slab = make([]float64, 1024*n)
	}
	row := a.cur.timelineRow(a.start, float64(a.count)*a.dt, a.spike[0], a.spike[1], a.slab[:n:n])
	a.slab = a.slab[n:]
	a.cur.reset()
	a.count = 0
	return row
}

// failWindow measures A_fail, work arriving per first attempt, over the
// steps of a failed state that lie at least settle steps from its edges,
// where the retry streams have settled.
type failWindow struct {
	settle      int
	run         int          // consecutive failing steps so far
	ring        [][2]float64 // last settle+1 steps: work arriving, first attempts
	pos         int
	work, first float64
}

func newFailWindow(settle int) *failWindow {
	return &failWindow{settle: settle, ring: make([][2]float64, settle+1)}
}

func (f *failWindow) add(work, first float64, failing bool) {
	f.ring[f.pos] = [2]float64{work, first}
	f.pos = (f.pos + 1) % len(f.ring)
	if !failing {
		f.run = 0
		return
	}
	f.run++
	if f.run > 2*f.settle {
		// The step settle steps back has settle failing steps on both sides.
		old := f.ring[f.pos]
		f.work += old[0]
		f.first += old[1]
	}
}

// edge marks a change of demand: the retry streams settle again after it.
func (f *failWindow) edge() { f.run = 0 }

func (f *failWindow) ratio() float64 {
	if f.first <= 0 {
		return 0
	}
	return f.work / f.first
}
