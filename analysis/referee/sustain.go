package referee

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/analysis/infer"
)

// The rules a sustaining effect is named by (docs/model.md, "Latency laws
// and what sustains a trap").
const (
	// lostCapacityShare: a service serving less than this share of its
	// capacity before has lost capacity (a tenth is within what a rate
	// over a scrape or two can tell).
	lostCapacityShare = 0.9
	// busyShareOfPatience: a second of the spike is busy (work waits) when
	// its median latency is above the floor by this share of the wait's
	// patience.
	busyShareOfPatience = 0.1
	// minBusySeconds is the fewest busy seconds the capacity before is
	// measured over.
	minBusySeconds = 2
)

// capacityBefore is what the service served while work waited before it
// failed, requests per second, and from what. Under the concurrency law
// the trap is judged against the throughput at the patience, C_τ, from
// the fitted law; before a fault, the scenario's C (the fault's own
// seconds serve C′); else the driver's successes in the spike's busy
// healthy seconds (its own count, to the attempt), or the scenario's C.
func (r *Referee) capacityBefore(law analysis.LatencyLaw) (float64, string) {
	switch {
	case !law.Queue() && law.CapacityPerS > 0:
		return law.CapacityAtTimeout(r.plan.Scenario.PatienceS), "the fitted law's C_τ, the throughput at the patience"
	case r.plan.Scenario.Fault != nil:
		return r.plan.Scenario.CapacityPerS, "the scenario's C (the fault's seconds serve less)"
	}
	if c, n := r.busyThroughput(law); n >= minBusySeconds {
		return c, fmt.Sprintf("the driver's successes over %d busy seconds of the spike", n)
	}
	return r.plan.Scenario.CapacityPerS, "the scenario's C"
}

// busyThroughput is the driver's successes per second over the spike's
// busy healthy seconds (work waiting: the median latency above the floor
// by a tenth of the wait's patience), and how many there were.
func (r *Referee) busyThroughput(law analysis.LatencyLaw) (float64, int) {
	if math.IsNaN(r.spikeStart) {
		return math.NaN(), 0
	}
	until := r.healthyUntil()
	busy := law.FloorS + busyShareOfPatience*law.WaitPatienceS(r.plan.Scenario.PatienceS)
	var ok float64
	n := 0
	for _, row := range r.rows {
		if row.TS < r.spikeStart || row.TS >= until || row.ByDriver() || row.Failing(r.cfg.SuccessRatio) || !(row.LatencyP50S > busy) {
			continue
		}
		ok += row.OK
		n++
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return ok / float64(n), n
}

// sustaining names what holds a trapped or metastable service down, from
// the run's measurements: retries (A·λ at least the capacity before),
// lost capacity (the service serves less in the failed state than before,
// the work arriving below what it had), both, or not known with what is
// missing. nil for other verdicts.
func (r *Referee) sustaining(verdict analysis.Verdict, in infer.Inference, law analysis.LatencyLaw) *analysis.Sustaining {
	if verdict != analysis.VerdictTrapped && verdict != analysis.VerdictMetastable {
		return nil
	}
	lambda := in.BaselinePerS
	a, aFrom := in.A.Value, in.AFrom
	if !in.A.Known() {
		a, aFrom = r.plan.Amplification.Predicted, infer.FromScenario
	}
	cb, cbFrom := r.capacityBefore(law)
	cf := math.NaN()
	if in.CapacitySource == "served" {
		cf = in.CapacityPerS
	}
	arriving := a * lambda
	s := &analysis.Sustaining{CapacityBeforePerS: analysis.Num(cb), CapacityBeforeFrom: cbFrom, CapacityFailedPerS: analysis.Num(cf),
		ArrivingPerS: analysis.Num(arriving), ArrivingFrom: fmt.Sprintf("%s = %.2f × λ", aFrom, a), DemandPerS: analysis.Num(lambda)}
	retries := arriving >= lostCapacityShare*cb
	lost := cf < lostCapacityShare*cb
	rates := fmt.Sprintf("A·λ = %.1f/s against %.1f/s before", arriving, cb)
	switch {
	case math.IsNaN(cf) && retries:
		s.Effect = analysis.SustainedByRetries
		s.Note = rates + ": the retries alone keep the work arriving at the capacity; what the service served in the failed state was not measured (no served rate in a settled failed window), so lost capacity is not ruled out"
	case math.IsNaN(cf):
		s.Effect = analysis.SustainedByNotKnown
		s.Note = rates + ": retries alone cannot hold it; a loss of capacity would, but what the service served in the failed state was not measured (give the scenario a served query)"
	case lost && !retries:
		s.Effect = analysis.SustainedByLostCapacity
		s.Note = fmt.Sprintf("the service served %.1f/s in the failed state, down from %.1f/s, while the work arriving, A·λ = %.1f/s, stayed below what it had: it lost capacity under the backlog, and retries are not what holds it", cf, cb, arriving)
	case lost:
		s.Effect = analysis.SustainedByBoth
		s.Note = fmt.Sprintf("the service served %.1f/s in the failed state, down from %.1f/s, and the work arriving, A·λ = %.1f/s, is at least what it had: retries and lost capacity both hold it", cf, cb, arriving)
	case retries:
		s.Effect = analysis.SustainedByRetries
		s.Note = fmt.Sprintf("the work arriving, A·λ = %.1f/s, is at least the %.1f/s the service serves (%.1f/s in the failed state, as before): the retries hold it", arriving, cb, cf)
	default:
		s.Effect = analysis.SustainedByNotKnown
		s.Note = fmt.Sprintf("%s, and the service served %.1f/s in the failed state, as before: neither retries nor lost capacity explain the failed state from these figures", rates, cf)
	}
	return s
}

// sustainingAdvice is what to change, from the named effect; it never
// recommends what the run measured the service to have.
func sustainingAdvice(s *analysis.Sustaining, lambda float64, hasBound bool) string {
	if s == nil {
		return ""
	}
	cb := analysis.Value(s.CapacityBeforePerS)
	bound := " or refuse work at the door with an admission bound b below the patience"
	if hasBound {
		bound = ""
	}
	switch s.Effect {
	case analysis.SustainedByRetries:
		return fmt.Sprintf("retries hold this service down: lower the work per first attempt below C/λ = %.2f (fewer retries, a retry budget), raise capacity above A·λ = %.0f/s,%s", cb/lambda, analysis.Value(s.ArrivingPerS), bound)
	case analysis.SustainedByLostCapacity:
		return fmt.Sprintf("lost capacity holds this service down (%.1f/s served in the failed state, %.1f/s before): fewer retries will not free it; find what it loses under a backlog (garbage collection, cache misses, lock contention),%s", analysis.Value(s.CapacityFailedPerS), cb, orKeep(bound, " or keep the backlog from forming"))
	case analysis.SustainedByBoth:
		return fmt.Sprintf("lost capacity and retries hold this service down: both must change (what it loses under a backlog, and the work per first attempt below %.2f)", analysis.Value(s.CapacityFailedPerS)/lambda)
	}
	return ""
}

// orKeep is s, or alt when s is empty.
func orKeep(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// advice is the run's advice: the plan's, less what the run's
// measurements contradict (a trap the service recovered from, a defence
// the run saw it has), with what the named sustaining effect calls for
// and what the fitted law changes.
func (r *Referee) advice(doc *analysis.Document, in infer.Inference) []string {
	_, layerFirst := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS())
	hasBound := layerFirst || r.plan.Scenario.AdmissionBoundS > 0
	out := []string{}
	for _, rec := range r.plan.Prediction.Recommendations {
		predictsTrap := strings.Contains(rec, analysis.AdviceTrapped)
		switch {
		case predictsTrap && doc.Verdict != analysis.VerdictTrapped && doc.Verdict != analysis.VerdictMetastable:
			// The plan's trap did not happen: the run's figures stand.
			continue
		case predictsTrap && doc.Observation.SustainedBy != nil:
			continue // the named effect's advice replaces it
		case hasBound && strings.Contains(rec, analysis.AdviceAddBound):
			continue
		}
		out = append(out, rec)
	}
	// The plan used the queue's forms unless it printed C_τ (its own law
	// is not read back: a judged document holds the law the run fitted).
	if doc.LatencyLaw != nil && !doc.LatencyLaw.Queue() && r.plan.Prediction.CapacityAtTimeoutPerS == nil {
		out = append(out, fmt.Sprintf("the run fitted the concurrency law to the service's healthy seconds (L₀ = %s, C = %.0f/s): the plan's trigger and trap figures were the queue's; declare service.latency_law = \"concurrency\" and latency_floor = %q for plan to use it",
			analysis.FormatSeconds(doc.LatencyLaw.FloorS), doc.LatencyLaw.CapacityPerS, time.Duration(doc.LatencyLaw.FloorS*float64(time.Second)).Round(time.Millisecond).String()))
	}
	if a := sustainingAdvice(doc.Observation.SustainedBy, in.BaselinePerS, hasBound); a != "" {
		out = append(out, a)
	}
	return out
}

// planContradicted says, once, in words, where the run's verdict departs
// from the plan's ("" when it does not): a trap the plan predicted that
// the service recovered from, with what the run saw defend it; a recovery
// the plan predicted from a service that stayed failed, with what held it.
func (r *Referee) planContradicted(doc *analysis.Document) string {
	planned := r.plan.Prediction.Verdict
	switch {
	case planned == analysis.VerdictTrapped && doc.Verdict == analysis.VerdictRecovered:
		why := "the service departs from the plan's model (one FIFO queue serving abandoned work at a fixed capacity)"
		if g, ok := layerGivesUp(r.rows, r.spikeStart, math.Inf(1), r.timeoutS()); ok {
			why = fmt.Sprintf("a layer in front of the service answered errors after %s, before the clients gave up: it bounds the work admitted, so no retry debt formed", analysis.FormatSeconds(g.latencyS))
		} else if l := doc.LatencyLaw; l != nil && !l.Queue() {
			why = "its latency follows another law than the plan's queue (" + l.Kind.String() + ")"
		}
		return "the plan predicted a trap; the service recovered: " + why + ". The run's figures stand, the plan's do not"
	case planned == analysis.VerdictRecovered && doc.Verdict == analysis.VerdictTrapped:
		why := "what held it down was not measured"
		if s := doc.Observation.SustainedBy; s != nil && s.Effect != analysis.SustainedByNotKnown {
			why = "held down by " + strings.ReplaceAll(string(s.Effect), "_", " ") + ": " + s.Note
		}
		return fmt.Sprintf("the plan predicted a recovery (its queue at A·ρ = %.2f drains); the service stayed failed, %s. The plan's recovery time does not apply", r.plan.Prediction.AmplifiedUtilization, why)
	}
	return ""
}
