package analysis

import "math"

// sampleAccumulator sums one timeline interval of steps into a FluidSample.
type sampleAccumulator struct {
	steps, count int
	dt           float64
	cur          FluidSample
	slab         []float64 // backing store for the samples' AttemptsPerS
	peak         float64
	next         float64 // start time of the next sample
}

func newSampleAccumulator(maxRetries, steps int, dt float64) *sampleAccumulator {
	a := &sampleAccumulator{steps: steps, dt: dt}
	a.reset(maxRetries)
	return a
}

func (a *sampleAccumulator) reset(maxRetries int) {
	if len(a.slab) < maxRetries+1 {
		a.slab = make([]float64, 1024*(maxRetries+1))
	}
	attempts := a.slab[: maxRetries+1 : maxRetries+1]
	a.slab = a.slab[maxRetries+1:]
	a.cur = FluidSample{TimeS: a.next, AttemptsPerS: attempts}
	a.count = 0
}

func (a *sampleAccumulator) add(step int, offered []float64, admitted, refused, timedOut, dropped, served, abandoned, goodput, gaveUp, wait float64) {
	c := &a.cur
	c.DemandPerS += offered[0]
	for j, v := range offered {
		c.AttemptsPerS[j] += v
	}
	c.AdmittedPerS += admitted
	c.RefusedPerS += refused
	c.TimeoutsPerS += timedOut
	c.RetriesDroppedPerS += dropped
	c.ServedPerS += served
	c.AbandonedPerS += abandoned
	c.GoodputPerS += goodput
	c.FailedRequestsPerS += gaveUp
	c.WaitS = wait
	c.MaxWaitS = math.Max(c.MaxWaitS, wait)
	a.peak = math.Max(a.peak, wait)
	a.count++
	a.next = float64(step+1) * a.dt
}

func (a *sampleAccumulator) full() bool { return a.count == a.steps }

// flush turns the sums into per-second rates and starts the next sample.
func (a *sampleAccumulator) flush() FluidSample {
	s := a.cur
	span := float64(a.count) * a.dt
	for _, p := range []*float64{&s.DemandPerS, &s.AdmittedPerS, &s.RefusedPerS, &s.TimeoutsPerS,
		&s.RetriesDroppedPerS, &s.ServedPerS, &s.AbandonedPerS, &s.GoodputPerS, &s.FailedRequestsPerS} {
		*p /= span
	}
	for j := range s.AttemptsPerS {
		s.AttemptsPerS[j] /= span
	}
	a.reset(len(s.AttemptsPerS) - 1)
	return s
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
