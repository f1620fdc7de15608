package fluid

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// Simulate runs the fluid model (docs/model.md, "The trap") in delay form:
// an attempt that finds the wait above τ_out times out, stays in the queue
// and is served anyway; its retry, when the policy allows one, arrives
// τ_out plus the backoff later. Refused attempts cost no service and are
// retried after the backoff alone.
func Simulate(cfg Config) (analysis.ModelResult, error) {
	if err := cfg.normalize(); err != nil {
		return analysis.ModelResult{}, err
	}
	return newSim(cfg).run(), nil
}

// sim is the state of one simulation.
type sim struct {
	cfg                Config
	dt, capacity       float64
	timeoutSteps       int
	retryAfterTimeout  []int       // [j]: steps from a timed-out attempt to retry j
	retryAfterRefusal  []int       // [j]: steps from a refused attempt to retry j
	due                [][]float64 // [j][slot]: retry j arrivals due, a ring over steps
	ring               int
	settle             int // steps for the retry stream to settle after a state change
	queue              fifo
	backlog            float64 // work in the queue
	spikeStep, endStep int
	res                analysis.ModelResult
}

func newSim(cfg Config) *sim {
	r := &sim{cfg: cfg, dt: cfg.StepS, capacity: cfg.CapacityPerS}
	maxRetries := cfg.Retry.MaxRetries
	r.timeoutSteps = steps(cfg.TimeoutS, r.dt, 1)
	r.retryAfterTimeout = make([]int, maxRetries+1)
	r.retryAfterRefusal = make([]int, maxRetries+1)
	lag := steps(cfg.RetryLagS, r.dt, 1)
	longest := 1
	for j := 1; j <= maxRetries; j++ {
		b := cfg.Retry.backoff(j)
		r.retryAfterTimeout[j] = lag + steps(b, r.dt, 0)
		r.retryAfterRefusal[j] = steps(b, r.dt, 1)
		longest = max(longest, r.retryAfterTimeout[j], r.retryAfterRefusal[j])
	}
	r.ring = longest + 1
	r.due = make([][]float64, maxRetries+1)
	for j := 1; j <= maxRetries; j++ {
		r.due[j] = make([]float64, r.ring)
	}
	r.settle = maxRetries*longest + r.timeoutSteps
	r.spikeStep = int(math.Round(cfg.SpikeStartS / r.dt))
	r.endStep = int(math.Round(cfg.SpikeEndS / r.dt))
	r.res = analysis.ModelResult{SpikeStartS: cfg.SpikeStartS, SpikeEndS: cfg.SpikeEndS, T0S: math.NaN(), CollapsedAtS: math.NaN()}
	return r
}

// schedule walks the stages by step: the rate at a step, and whether any
// stage from the current one on could overload the service by itself.
type schedule struct {
	stages    []analysis.DemandStage
	idx       int
	end       float64
	calmAfter []bool // [i]: stages i.. all have rate below capacity
}

func newSchedule(stages []analysis.DemandStage, capacity float64) *schedule {
	s := &schedule{stages: stages, end: stages[0].DurationS, calmAfter: make([]bool, len(stages)+1)}
	s.calmAfter[len(stages)] = true
	for i := len(stages) - 1; i >= 0; i-- {
		s.calmAfter[i] = s.calmAfter[i+1] && stages[i].RatePerS < capacity
	}
	return s
}

// demandIn returns the first attempts that arrive in [from, to): the exact
// integral of the piecewise-constant rate, so stage boundaries need not
// fall on steps. Calls must move forward in time.
func (s *schedule) demandIn(from, to float64) float64 {
	total := 0.0
	for {
		last := s.idx == len(s.stages)-1
		if to <= s.end || last {
			return total + (to-from)*s.stages[s.idx].RatePerS
		}
		if from < s.end {
			total += (s.end - from) * s.stages[s.idx].RatePerS
			from = s.end
		}
		s.idx++
		s.end += s.stages[s.idx].DurationS
	}
}

func (s *schedule) calm() bool { return s.calmAfter[s.idx] }

func (r *sim) run() analysis.ModelResult {
	cfg, dt := r.cfg, r.dt
	maxRetries := cfg.Retry.MaxRetries
	total := 0.0
	for _, s := range cfg.Stages {
		total += s.DurationS
	}
	nSteps := int(math.Ceil(total/dt - 1e-9))
	sampleSteps := steps(cfg.SampleS, dt, 1)
	r.res.Timeline = make([]analysis.TimelineRow, 0, nSteps/sampleSteps+1)
	sched := newSchedule(cfg.Stages, r.capacity)
	baseline := cfg.Stages[0].RatePerS
	bound := cfg.AdmissionBoundS * r.capacity
	serveStep := r.capacity * dt
	threshold := cfg.TimeoutS * (1 + 1e-12)

	offered := make([]float64, maxRetries+1)
	acc := newSampleAccumulator(maxRetries, sampleSteps, dt, cfg.SpikeStartS, cfg.SpikeEndS)
	fail := analysis.NewFailWindow(r.settle)
	var lostFirst float64
	lastDue, lastBad, firstFail, n := -1, -1, -1, 0

	stage := 0
	for ; n < nSteps; n++ {
		first := sched.demandIn(float64(n)*dt, float64(n+1)*dt)
		if sched.idx != stage {
			stage = sched.idx
			fail.Edge()
		}
		slot := n % r.ring
		offered[0] = first
		retries := 0.0
		for j := 1; j <= maxRetries; j++ {
			offered[j] = r.due[j][slot]
			r.due[j][slot] = 0
			retries += offered[j]
		}
		dropped := 0.0
		if cfg.Retry.HasBudget && retries > 0 {
			if allow := cfg.Retry.Budget * first; retries > allow {
				keep := allow / retries
				for j := 1; j <= maxRetries; j++ {
					offered[j] *= keep
				}
				dropped, retries = retries-allow, allow
			}
		}
		arriving := first + retries

		capacity := r.capacityAt(float64(n) * dt)
		serveStep = capacity * dt
		wait := r.backlog / capacity
		failing := wait > threshold
		admit := 1.0
		if bound > 0 && arriving > 0 {
			room := bound - r.backlog
			switch {
			case room <= 0:
				admit = 0
			case arriving > room:
				admit = room / arriving
			}
		}
		admitted := arriving * admit
		refused := arriving - admitted
		work := admitted
		if failing {
			work *= cfg.InnerAmplification
		}
		r.backlog += work
		r.queue.push(work, failing)

		timedOut, goodput, gaveUp := 0.0, 0.0, dropped
		firstTimedOut, firstRefused := 0.0, 0.0
		for j := 0; j <= maxRetries; j++ {
			a := offered[j]
			if a == 0 {
				continue
			}
			in := a * admit
			out := a - in
			failed := out
			if failing {
				failed += in
				timedOut += in
			} else if j == 0 {
				goodput = in
			}
			if j == 0 {
				lostFirst += failed
				firstRefused = out
				if failing {
					firstTimedOut = in
				}
			}
			if failed == 0 {
				continue
			}
			if j == maxRetries {
				gaveUp += failed
				continue
			}
			if failing && in > 0 {
				d := r.retryAfterTimeout[j+1]
				r.due[j+1][(n+d)%r.ring] += in
				lastDue = max(lastDue, n+d)
			}
			if out > 0 {
				d := r.retryAfterRefusal[j+1]
				r.due[j+1][(n+d)%r.ring] += out
				lastDue = max(lastDue, n+d)
			}
		}

		if cfg.Concurrency && r.backlog > 0 {
			// X(N) = C·N/(C·L₀ + N): every request in flight shares the service.
			serveStep = capacity * r.backlog / (capacity*cfg.FloorS + r.backlog) * dt
		}
		served := math.Min(r.backlog, serveStep)
		_, abandoned := r.queue.serve(served)
		r.backlog -= served
		if r.backlog <= 0 {
			r.backlog = 0
			r.queue.clear()
		}

		if timedOut > 0 || refused > 0 {
			if firstFail < 0 && n >= r.spikeStep {
				firstFail = n
			}
		}
		// A queue is back when it is empty; under concurrency requests are
		// always in flight, and the service is back when none fails.
		if timedOut > 0 || refused > 0 || (r.backlog > 0 && !cfg.Concurrency) {
			lastBad = n
		}
		fail.Add(work+refused, first, failing || (admitted == 0 && arriving > 0))
		r.res.TimedOut += timedOut
		r.res.Refused += refused
		r.res.Abandoned += abandoned
		r.res.FailedRequests += gaveUp
		acc.add(n, offered, refused, timedOut, firstRefused, firstTimedOut, dropped, served, abandoned, goodput, gaveUp, r.backlog/capacity)
		if acc.full() {
			r.res.Timeline = append(r.res.Timeline, acc.flush())
		}

		if cfg.StopWhenRecovered && n >= r.endStep && lastBad < n && n >= lastDue && sched.calm() {
			n++
			break
		}
	}
	if acc.count > 0 {
		r.res.Timeline = append(r.res.Timeline, acc.flush())
	}
	r.res.EndS = float64(n) * dt
	r.res.PeakWaitS = acc.peak
	r.res.FinalWaitS = r.backlog / r.capacity
	r.res.AmplificationFailed = fail.Ratio()
	if baseline > 0 {
		r.res.LostWorkS = lostFirst / baseline
	}
	r.judge(firstFail, lastBad, lastDue, n, sched)
	return r.res
}

// capacityAt is the service's capacity at t seconds: C, or C′ while the
// fault holds.
func (r *sim) capacityAt(t float64) float64 {
	if f := r.cfg.FaultCapacity; f > 0 && t >= r.cfg.FaultStartS && t < r.cfg.FaultEndS {
		return f * r.capacity
	}
	return r.capacity
}

// judge sets the verdict, the recovery time and the projection.
func (r *sim) judge(firstFail, lastBad, lastDue, n int, sched *schedule) {
	res := &r.res
	dt := r.dt
	if firstFail >= 0 {
		res.T0S = float64(firstFail)*dt - res.SpikeStartS
	}
	recoveredAt := float64(lastBad+1) * dt
	clean := lastBad < n-1 && lastDue < n
	rho := sched.stages[sched.idx].RatePerS / r.capacity
	j := r.judgeWait(rho)
	res.WaitSlope = j.Trend.Slope
	switch {
	case firstFail < 0:
		res.Verdict = analysis.VerdictNoTrigger
		res.RecoveryS = math.Max(0, recoveredAt-res.SpikeEndS)
		if !clean {
			res.RecoveryS = math.Inf(1)
		}
		res.ProjectedRecoveryS = res.RecoveryS
	case clean:
		res.Verdict = analysis.VerdictRecovered
		res.RecoveryS = math.Max(0, recoveredAt-res.SpikeEndS)
		res.ProjectedRecoveryS = res.RecoveryS
	default:
		res.RecoveryS = math.Inf(1)
		res.ProjectedRecoveryS = j.ProjectedS
		res.Verdict = analysis.ModelVerdict(j)
	}
}

// judgeWait judges the wait's trend over the last quarter of the time
// after the spike (at least two settling times of the retry streams) by the
// one verdict rule (analysis.Judge). The fluid model's wait is exact: its standard
// error is floored only at 1e-9 s/s, so the slope's sign decides.
func (r *sim) judgeWait(rho float64) analysis.Judgement {
	tl := r.res.Timeline
	settleS := float64(r.settle) * r.dt
	end := r.res.EndS
	window := math.Max(0.25*(end-r.res.SpikeEndS), 2*settleS)
	from := math.Max(r.res.SpikeEndS, end-window)
	w := analysis.WaitSeries{Source: analysis.WaitFromFluidModel, DelayS: from - r.res.SpikeEndS, ResolutionS: r.cfg.SampleS}
	for _, s := range tl {
		if at := s.TS + r.cfg.SampleS; at >= from && at <= end {
			w.T, w.W = append(w.T, at), append(w.W, s.WaitS)
		}
	}
	return analysis.Judge(analysis.JudgeInput{Wait: w, SpikeEndS: r.res.SpikeEndS, FailedToS: math.Inf(1), HorizonS: end,
		PatienceS: r.cfg.TimeoutS, Utilization: rho, Final: true}, analysis.ModelJudgePolicy(1e-9))
}
