package infer

import (
	"fmt"
	"math"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// The estimates of A a run can stand by, named as the result document and
// the reports name them (Inference.AFrom).
const (
	FromAFail    = "A_fail"
	FromSlope    = "A from the wait's slope"
	FromRecovery = "A from the recovery time"
	FromScenario = "the scenario's A"
	FromClients  = "the clients' own A (the driver's count)"
)

// queueUnseenShare: while first attempts fail by waiting (timeouts, a
// layer's 5xx), the wait is past the patience, so the work that arrived
// and was not served, (ingress − served)/C summed since the spike began,
// reaches the patience. A sum that stays under this share of it means the
// ingress counter does not count the arrivals that wait.
const queueUnseenShare = 0.5

// queueUnseen says why the ingress counter cannot have counted the
// attempts arriving at the service ("" when it can, or when the rows
// cannot tell): it stayed with the served counter, the work they integrate
// to stayed under queueUnseenShare of the patience, while first attempts
// failed by waiting. Such a counter counts requests as the service handles
// them, behind its queue (an application's own counter, a worker's), so
// ingress/first attempts reads C/λ whatever A is (docs/model.md, "What a
// trigger test measures", item 4).
func queueUnseen(rows []analysis.TimelineRow, f RunFacts, capacityPerS, toS float64) string {
	if capacityPerS <= 0 || math.IsNaN(capacityPerS) || math.IsNaN(toS) {
		return ""
	}
	var backlog, peak, waitFailures, failures float64
	n := 0
	for _, r := range rows {
		if r.TS+1 <= f.SpikeStartS || r.TS >= toS {
			continue
		}
		failures += r.Failures()
		waitFailures += r.Timeouts + r.Errors - r.Connect
		if math.IsNaN(r.IngressPerS) || math.IsNaN(r.ServedPerS) {
			continue
		}
		n++
		backlog = math.Max(0, backlog+(r.IngressPerS-r.ServedPerS)/capacityPerS)
		peak = math.Max(peak, backlog)
	}
	// Failures at the door (503, 429, refused connections) need no queue.
	if n == 0 || failures == 0 || waitFailures < 0.5*failures || peak >= queueUnseenShare*f.PatienceS {
		return ""
	}
	return fmt.Sprintf("the ingress counter kept pace with the served counter while first attempts failed by waiting (the work between them stayed under %s, where a wait past the patience of %s needs that much at least): it counts requests as the service handles them, behind its queue, and reads C/λ whatever A is",
		analysis.FormatSeconds(math.Max(peak, 0.1)), analysis.FormatSeconds(f.PatienceS))
}

// atServedShare: a counter whose rate over the settled failed window is
// within this share of the served rate stays at served.
const atServedShare = 0.05

// atServed says why the ingress counter counts behind the queue, judged
// over the settled failed window [fromS, toS) of a service that did not
// recover ("" when it does not, or the rows cannot tell): there, first
// attempts failing by waiting, its rate stayed within atServedShare of the
// served rate. A counter before the queue reads A·λ there, above C while
// the wait grows; one behind it reads C whatever A is. (Over the spike it
// may still run ahead of served: a proxy's counter counts until the proxy
// itself saturates.) A service standing exactly at A·λ = C reads the same,
// and is then a bound too.
func atServed(rows []analysis.TimelineRow, f RunFacts, fromS, toS float64) string {
	if f.RecoveryS >= 0 || math.IsNaN(fromS) || math.IsNaN(toS) || toS <= fromS {
		return ""
	}
	win := [][2]float64{{fromS, toS}}
	ingress := meanIn(rows, win, func(r analysis.TimelineRow) float64 { return r.IngressPerS })
	served := meanIn(rows, win, func(r analysis.TimelineRow) float64 { return r.ServedPerS })
	waiting := meanIn(rows, win, func(r analysis.TimelineRow) float64 { return r.Timeouts + r.Errors - r.Connect })
	failures := meanIn(rows, win, func(r analysis.TimelineRow) float64 { return r.Failures() })
	if !(served > 0) || math.IsNaN(ingress) || !(failures > 0) || waiting < 0.5*failures || math.Abs(ingress/served-1) > atServedShare {
		return ""
	}
	return fmt.Sprintf("over the settled failed window (%.0f–%.0f s) the ingress counter read %.1f/s, within %.0f %% of the %.1f/s served, while first attempts failed by waiting: it counts requests as the service takes them from its queue (behind it), and reads C/λ whatever A is",
		fromS, toS, ingress, 100*atServedShare, served)
}

// firstReached is the share of the driver's first attempts that the
// service's first-attempt series counted over [fromS, toS] (1 where it is
// not read: the driver's own count stands in for it then).
func firstReached(rows []analysis.TimelineRow, fromS, toS float64) float64 {
	var sent, seen float64
	for _, r := range rows {
		if r.TS < fromS || r.TS > toS || math.IsNaN(r.ServiceFirstPerS) {
			continue
		}
		sent += r.Sent
		seen += r.ServiceFirstPerS
	}
	if !(sent > 0) {
		return 1
	}
	return seen / sent
}

// agree reports whether two estimates agree: their intervals overlap (an
// estimate without an interval counts as ±10 % of its value).
func agree(a, b Interval) bool {
	bounds := func(iv Interval) (float64, float64) {
		if iv.Bounded() {
			return iv.Lo, iv.Hi
		}
		return 0.9 * iv.Value, 1.1 * iv.Value
	}
	alo, ahi := bounds(a)
	blo, bhi := bounds(b)
	return alo <= bhi && blo <= ahi
}

// estimate is one way of measuring A, named.
type estimate struct {
	name string
	iv   Interval
}

// reconcile sets A_fail's status, the hidden factor and the A the run
// stands by from the estimates Infer made, so that no figure is claimed
// that another measurement of the same thing contradicts (docs/model.md,
// "What a trigger test measures", item 4):
//
//   - A_fail from a counter that cannot see the queue (queueUnseen) is no
//     measurement: AFail becomes unknown, AFailNote says why, and C/λ is
//     kept as the bound it is (at least A for a trapped service, at most
//     for one that recovered);
//   - the hidden factor is claimed only from a measured A_fail that agrees
//     with A from the slope or the recovery, when either exists; one
//     below 1 means attempts were lost before the counter, never a layer;
//   - A (AFrom, ANote) is A_fail when measured, else A from the slope,
//     else from the recovery; the estimates that disagree with it are
//     named.
func reconcile(in *Inference, rows []analysis.TimelineRow, f RunFacts) {
	in.AFailCounted = in.AFail
	why := queueUnseen(rows, f, in.CapacityPerS, in.FailedToS)
	if why == "" {
		why = atServed(rows, f, in.FailedFromS, in.FailedToS)
	}
	// What the driver counts is exact: the attempts per request its
	// clients sent (A_client, or 1 for clients that never retry).
	exact := unknownInterval() // not a zero Interval: 0 would be a known A
	switch {
	case in.AClient.Known():
		exact = in.AClient
	case f.ClientAmplification == 1:
		exact = Interval{Value: 1, Lo: 1, Hi: 1, N: 1} // clients that never retry
	}
	if a := in.AFail; why == "" && a.Known() && exact.Known() && exact.Value > 0 && a.Value < 0.9*exact.Value {
		// Fewer attempts reached the counter than the clients sent: the
		// rest were lost before it (no layer does that), at a door that
		// drops them while the service fails, which moves as the failed
		// state does. What got in is no amplification: A_fail is null and
		// the share lost is reported as lost.
		in.LostBeforeCounter = 1 - a.Value/exact.Value
		in.AFailNote = fmt.Sprintf("the service's counter saw %s attempts per first attempt while the clients sent %.2f (the driver's count): %.0f %% of their attempts were lost before it (connections refused, or timed out in an overflowing accept queue), so it counts what got in, not the amplification",
			intervalText(a), exact.Value, 100*in.LostBeforeCounter)
		in.AFail = unknownInterval()
	}
	if a := in.AFail; why == "" && a.Known() && exact.Known() && a.Value > 1.1*exact.Value {
		// More attempts per first attempt than the clients sent is a layer
		// retrying, or a first-attempt series that misses first attempts
		// (a label the server does not set, a series that counts a part):
		// the driver knows how many it sent.
		if seen := firstReached(rows, in.FailedFromS, in.FailedToS); seen < 0.9 {
			in.AFailNote = fmt.Sprintf("not a measurement: the service's first-attempt series counted %.0f %% of the first attempts the driver sent over the failed window, so ingress over it (%s) is not attempts per first attempt; check the first_attempts query (a label the server sets, such as the attempt number from x-attempt)",
				100*seen, intervalText(a))
			in.AFail = unknownInterval()
		}
	}
	if why != "" && in.AFail.Known() {
		in.AFailNote = why
		bound := in.AFail.Value
		switch {
		case f.Trapped:
			in.AFailAtLeast = bound
			in.AFailNote += fmt.Sprintf("; the service stayed failed, so A_fail ≥ C/λ = %.2f", bound)
		case !math.IsNaN(f.RecoveryS):
			in.AFailAtMost = bound
			in.AFailNote += fmt.Sprintf("; the service recovered, so A_fail < C/λ = %.2f", bound)
		}
		in.AFailNote += "; count ingress before the queue: a proxy's or load balancer's counter, or the driver's own trigger_attempts_sent_total when nothing retries in between"
		in.AFail = unknownInterval()
	} else if !in.AFail.Known() && in.AFailNote == "" {
		in.AFailNote = "not measured: it needs the ingress query and a settled failed state after the spike"
	}

	var independent []estimate
	for _, e := range []estimate{{FromSlope, in.AFromSlope}, {FromRecovery, in.AFromRecovery}} {
		if e.iv.Known() && e.iv.Value > 0 && !math.IsInf(e.iv.Value, 0) {
			independent = append(independent, e)
		}
	}
	// What the driver counts is exact: no inference overrides it. An A
	// inferred below the clients' own attempts per request contradicts it
	// (layers only multiply) and is not reported; and without A_fail, a
	// scenario that declares no layer beyond its clients stands by the
	// clients' own A.
	var below []string
	kept := independent[:0]
	for _, e := range independent {
		top := e.iv.Value
		if e.iv.Bounded() {
			top = e.iv.Hi
		}
		if exact.Known() && top < 0.9*exact.Value {
			below = append(below, fmt.Sprintf("%s = %s", e.name, intervalText(e.iv)))
			note := fmt.Sprintf("not reported: %s, below the clients' own %.2f attempts per request, which the driver counts (the model's law does not fit this service, or attempts were lost before it)", intervalText(e.iv), exact.Value)
			if e.name == FromSlope {
				in.AFromSlope, in.AFromSlopeNote = unknownInterval(), note
			} else {
				in.AFromRecovery, in.AFromRecoveryNote = unknownInterval(), note
			}
			continue
		}
		kept = append(kept, e)
	}
	var stands estimate
	switch {
	case in.AFail.Known():
		stands = estimate{FromAFail, in.AFail}
	case exact.Known() && f.ScenarioAmplification == f.ClientAmplification && (len(independent) > 0 || in.AClient.Known()):
		stands = estimate{FromClients, exact}
	case len(kept) > 0:
		stands = kept[0]
	}
	in.A, in.AFrom = stands.iv, stands.name
	if stands.name == "" {
		in.A = unknownInterval()
	}
	var disagree, agreeing []string
	for _, e := range kept {
		if e.name == stands.name || !stands.iv.Known() {
			continue
		}
		if agree(stands.iv, e.iv) {
			agreeing = append(agreeing, e.name)
		} else {
			disagree = append(disagree, fmt.Sprintf("%s = %s", e.name, intervalText(e.iv)))
		}
	}
	switch {
	case stands.name == FromAFail && len(disagree) > 0:
		in.ANote = fmt.Sprintf("A_fail = %s, counted at the service, stands; %s disagree: they infer A from the model (a FIFO queue that serves abandoned work, at the measured ρ) and the service departs from it",
			intervalText(in.AFail), strings.Join(disagree, " and "))
	case stands.name == FromAFail && len(agreeing) > 0:
		in.ANote = fmt.Sprintf("A_fail = %s, counted at the service, agrees with %s", intervalText(in.AFail), strings.Join(agreeing, " and "))
	case stands.name == FromAFail:
		in.ANote = fmt.Sprintf("A_fail = %s, counted at the service; no other estimate to check it against", intervalText(in.AFail))
	case stands.name != "":
		in.ANote = fmt.Sprintf("%s = %s stands, A_fail not being a measurement", stands.name, intervalText(stands.iv))
		if len(disagree) > 0 {
			in.ANote += "; " + strings.Join(disagree, " and ") + " disagrees"
		}
	default:
		in.ANote = "A is not measured: no A_fail, and no wait slope or recovery time to infer it from"
	}
	if len(below) > 0 {
		in.ANote += fmt.Sprintf("; %s is below the clients' own %.2f attempts per request, which the driver counts: not an A (the model's law does not fit this service)", strings.Join(below, " and "), exact.Value)
	}

	in.Hidden = unknownInterval()
	if !in.AFail.Known() || !in.AClient.Known() || in.AClient.Value <= 0 {
		switch {
		case in.LostBeforeCounter > 0:
			in.HiddenNote = fmt.Sprintf("not claimed: %.0f %% of the clients' attempts never reached the counter (connections refused, an accept queue overflowing), which is no retry layer", 100*in.LostBeforeCounter)
		case in.AFailNote != "":
			in.HiddenNote = "not measured: A_fail is not a measurement"
		}
		return
	}
	h := in.AFail.scale(1 / in.AClient.Value)
	switch {
	case len(independent) > 0 && len(agreeing) == 0:
		in.HiddenNote = fmt.Sprintf("not claimed: A_fail = %s disagrees with %s, so the counters cannot be trusted to tell a layer from the model's error",
			intervalText(in.AFail), strings.Join(disagree, " and "))
	case h.Value < 1 && h.Value >= 0.9:
		// Never a factor below 1: within a tenth of it, no layer.
		in.HiddenNote = fmt.Sprintf("none: A_fail = %s matches the clients' own %.2f, so no layer between them and the service retries",
			intervalText(in.AFail), in.AClient.Value)
	case h.Value < 1:
		// Never a factor below 1: attempts lost before the counter.
		in.HiddenNote = fmt.Sprintf("A_fail = %s is below the clients' own %.2f: %.0f %% of their attempts never reached the counter (connections refused, an accept queue overflowing, a counter behind the queue), which is no retry layer",
			intervalText(in.AFail), in.AClient.Value, 100*(1-h.Value))
	default:
		in.Hidden = h
	}
}

// intervalText prints an estimate with its interval: "9.02 (8.91–9.13)".
func intervalText(iv Interval) string { return iv.String() }
