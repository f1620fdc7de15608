package fieldtest

import (
	"fmt"
	"slices"
	"time"

	"github.com/trigger-test/trigger/analysis"
)

// Signals is how the stack's Prometheus sees the service: its scrape
// interval and the range window of the scenario's rate queries.
type Signals struct {
	Name           string
	ScrapeInterval time.Duration
	Window         string // PromQL duration of the queries' range, e.g. "20s"
}

// The two resolutions the field test is run at: a 5 s scrape with 20 s
// windows, and Prometheus' common 15 s with one-minute windows.
var (
	Fast = Signals{Name: "5s/[20s]", ScrapeInterval: 5 * time.Second, Window: "20s"}
	Slow = Signals{Name: "15s/[1m]", ScrapeInterval: 15 * time.Second, Window: "1m"}
)

// Case is one staging situation. On the proxy stack (App false) the
// service is the specimen's System A at C = 200/s (two pods of 100/s,
// FIFO, abandoned work served) and haproxy in front of it retries twice
// on its own per-try timeout (×3 at the service), which the scenario may
// or may not declare. On the application-server stack (App true, see
// AppCases) it is uWSGI serving a WSGI app. The clients time out after
// 1 s and retry twice on timeouts and errors (A_client = 3).
type Case struct {
	Name string
	// What the case is, in a line.
	What string
	// Baseline is λ; Multiplier k; Spike Δ (for the Fast signals: Slow ones
	// need longer failed states to measure in, see Scaled).
	Baseline, Multiplier float64
	Spike                time.Duration
	// TryTimeout is haproxy's per-try timeout: 400 ms makes its three tries
	// outlast the clients' 1 s (they time out); 300 ms answers them 504
	// after 0.9 s, before their timeout.
	TryTimeout time.Duration
	// Declared puts the proxy's layer (×3, its per-try timeout) in the scenario.
	Declared bool
	// Tracers adds tracers to the clients (behind the proxy they get 504s).
	Tracers bool
	// WaitGauge adds the service's own wait gauge to the scenario's queries.
	WaitGauge bool
	// Want is the right verdict.
	Want analysis.Verdict
	// Observe is the observation window for the Fast signals.
	Observe time.Duration

	// The application-server stack (AppCases).

	// App runs the case against uWSGI instead of the specimen.
	App bool
	// Proxy puts haproxy in front of uWSGI, retrying once on its 400 ms
	// per-try timeout (×2, hidden from the scenario); without it the
	// clients reach uWSGI directly.
	Proxy bool
	// IngressFrom is where the scenario reads ingress: "app" (the
	// application's own counter, which counts requests as the worker
	// starts them, behind the queue), "proxy" (haproxy's exporter, every
	// try, before the queue) or "driver" (the driver's own
	// trigger_attempts_sent_total, with first_attempts from it too).
	IngressFrom string
	// Budget is the gate's max_recovery; 0 = none.
	Budget time.Duration
	// AlsoRight is another verdict that is right for the case (a trap the
	// wait signals cannot show is at least metastable).
	AlsoRight analysis.Verdict
	// GateFails says the gate must fail (exit 1).
	GateFails bool
	// AFailNull says A_fail must not be reported: the counters cannot
	// measure it (they count behind the queue).
	AFailNull bool
	// WantHidden says the hidden factor must be measured.
	WantHidden bool
	// Restart restarts uWSGI just before the run, so that Prometheus holds
	// only its stale series when the run starts.
	Restart bool
	// TrueA is the amplification the service really sees once every
	// attempt fails, for the recovery's formula.
	TrueA float64

	// The field laws' stacks (FieldLawCases).

	// Stack names a stack of FieldLawCases ("" = the specimen's or, with
	// App, uWSGI's): StackHAProxyQueue, StackHAProxyFrontend, StackPython
	// or StackPythonTracker.
	Stack string
	// ClientTimeout is the clients' timeout; 0 = 1 s.
	ClientTimeout time.Duration
	// NoRetries makes the clients send each request once (A_client = 1);
	// otherwise they retry twice.
	NoRetries bool
	// NotFIFO says the service is not the model's FIFO queue serving
	// abandoned work (an admission bound, processor sharing): its recovery
	// is not checked against the model's formula.
	NotFIFO bool
	// KnownWrong lists the figures the run reports wrong for this case and
	// the analysis does not handle yet ("A_fail", "hidden", "slope",
	// "recovery"): their problems are logged as known, not failed.
	KnownWrong []string
	// Sustained are the sustaining effects that are right for a trapped or
	// metastable run of the case (observation.sustained_by); empty: not
	// checked.
	Sustained []analysis.SustainingEffect
	// Hold is the scenario's recovery.hold; zero means 3 s.
	Hold time.Duration
	// HasBound says the service bounds the work it admits (a proxy that
	// answers errors from its own queue): no advice may recommend one.
	HasBound bool
}

// hiddenFactor is the proxy's amplification once every try fails: the
// first try and its two retries.
const hiddenFactor = 3

// capacity is the specimen's C in requests per second.
const capacity = 200

// Cases are the field test's cases (the list in docs and README).
func Cases() []Case {
	trap := Case{Baseline: 50, Multiplier: 5, Spike: 10 * time.Second, TryTimeout: 400 * time.Millisecond,
		Want: analysis.VerdictTrapped, Observe: 90 * time.Second, TrueA: 9}
	// A·ρ = 9 × 15.6/200 ≈ 0.70: recovers, slowly (1 − A·ρ ≈ 0.3), in
	// about a minute and a half. With A = 9 the overloaded part of the spike
	// (Δ − t0) is short for any recovery a test can wait for, and the
	// recovery time follows it closely: 3 s keeps t0's share small.
	recovery := Case{Baseline: 15.6, Multiplier: 20, Spike: 3 * time.Second, TryTimeout: 400 * time.Millisecond,
		Want: analysis.VerdictRecovered, Observe: 3 * time.Minute, TrueA: 9}
	named := func(c Case, name, what string) Case { c.Name, c.What = name, what; return c }
	declared := func(c Case) Case { c.Declared = true; return c }
	gauge := func(c Case) Case { c.WaitGauge = true; return c }
	fast5xx := trap
	fast5xx.TryTimeout = 300 * time.Millisecond
	tracers := fast5xx
	tracers.Tracers = true
	return []Case{
		named(trap, "hidden-trap", "declared A·ρ = 0.75, real A·ρ = 2.25 (the proxy's ×3 not declared)"),
		named(recovery, "hidden-slow-recovery", "declared A·ρ = 0.23, real A·ρ = 0.70 (the proxy's ×3 not declared)"),
		named(declared(trap), "declared-trap", "A·ρ = 2.25 with the proxy's layer declared"),
		named(declared(recovery), "declared-slow-recovery", "A·ρ = 0.70 with the proxy's layer declared"),
		named(fast5xx, "proxy-answers-504", "the proxy's tries (3 × 300 ms) end before the clients' 1 s: they see 504s, not timeouts"),
		named(tracers, "tracers-behind-proxy", "tracers behind a proxy that gives up after 0.9 s"),
		named(gauge(recovery), "slow-recovery-wait-gauge", "the hidden slow recovery, with the service's wait gauge"),
	}
}

// Scaled adapts a case to the signals: the same service and proxy, with
// the observation long enough for the signals' delay, and for a recovering
// case a longer spike, so that its failed state outlasts the rate windows
// and A_fail can be measured in it.
func (c Case) Scaled(s Signals) Case {
	if c.App || c.Stack != "" || s.ScrapeInterval <= Fast.ScrapeInterval {
		return c
	}
	c.Observe = 4 * time.Minute
	if c.Want == analysis.VerdictRecovered {
		c.Spike, c.Observe = 4*time.Second, 5*time.Minute // a failed state of about 2 min 20 s
	}
	return c
}

// String names the case.
func (c Case) String() string { return fmt.Sprintf("%s (%s)", c.Name, c.What) }

// clientTimeout is the clients' timeout.
func (c Case) clientTimeout() time.Duration {
	if c.ClientTimeout > 0 {
		return c.ClientTimeout
	}
	return time.Second
}

// clientAttempts is the clients' attempts per request once every attempt
// fails: A_client.
func (c Case) clientAttempts() float64 {
	if c.NoRetries {
		return 1
	}
	return 3
}

// knownWrong says whether the case lists figure among the figures known
// to be reported wrong.
func (c Case) knownWrong(figure string) bool { return slices.Contains(c.KnownWrong, figure) }
