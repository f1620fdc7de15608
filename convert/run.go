package convert

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/trigger-test/trigger/internal/tlsfiles"
	"github.com/trigger-test/trigger/scenarios"
	"github.com/trigger-test/trigger/vocab"
)

// Run is what a real run reads of its scenario beyond the model's inputs
// (Test.Plan: λ, C, k, Δ, τ_out, the gate, in seconds) and the driver's
// configuration (Test.Driver): the runner reads the scenario through
// these three and nothing else (docs/design.md, "The house").
type Run struct {
	// Name is the scenario's name; TargetURL the URL the load is sent to.
	Name, TargetURL string
	// Warmup is the baseline before the spike; Observe how long the run
	// watches after it when nothing ends it early.
	Warmup, Observe time.Duration
	// SpikeDuration is Δ.
	SpikeDuration time.Duration
	// MaxDuration is the hard limit on the run: max_duration, or the
	// horizon and the schedule's slack.
	MaxDuration time.Duration
	// Recovery is when the run counts the service as recovered.
	Recovery Recovery
	// OnTrap is what the run does once the service is judged trapped;
	// nil: nothing.
	OnTrap *OnTrap
	// Fault is the capacity trigger the run holds in the spike's place;
	// nil without one.
	Fault *Fault
	// Baseline is the previous run the gate compares this one with; nil
	// without gate.baseline.
	Baseline *Baseline
	// Notify is the webhook the run posts its outcome to when it ends; nil
	// without a notify block.
	Notify *Notify
	// Brakes are the stop_when conditions, in the order declared.
	Brakes []Brake
	// Metrics is where the service's metrics are read; nil when the
	// scenario has no prometheus block.
	Metrics *Metrics
	// Secrets are the values of the sensitive variables, which the run
	// replaces wherever it writes or logs text.
	Secrets []string
	// MaxInFlightChosen says the scenario set client.max_in_flight itself
	// (a value lowered to the descriptor limit is then worth a note).
	MaxInFlightChosen bool
	// Touches is what the run does outside its process besides its load
	// (scenarios.Touches): the servers, commands, secrets and files,
	// checked against the operator's Consent and kept in result.json.
	Touches scenarios.Touches

	sends func() error
}

// Recovery is when a run counts the service as recovered (block
// "recovery").
type Recovery struct {
	// SuccessRatio is the first-attempt success ratio the service must
	// get back above, in [0, 1].
	SuccessRatio float64
	// Hold is how long the ratio must stay above it.
	Hold time.Duration
}

// Notify is the notify block: a Slack-compatible webhook (a secret: it is
// among Secrets) and the bound on posting to it.
type Notify struct {
	Webhook string
	Timeout time.Duration
}

// Baseline is gate.baseline: the path of a previous run's result.json and
// the comparison's thresholds (shares).
type Baseline struct {
	Path                       string
	MaxRecoveryRegression      float64
	MaxAmplificationRegression float64
}

// Fault is a capacity trigger as the runner runs it: Start takes
// capacity away, Stop puts it back (always), each an argv list run from
// Dir within Timeout; the fault holds for Duration after Start ends.
type Fault struct {
	Name        string
	Start, Stop []string
	Dir         string
	// Env is set in both commands' environment, on top of the run's;
	// only its names are written anywhere (the log, the journal, the
	// registry).
	Env      map[string]string
	Duration time.Duration
	Timeout  time.Duration
	// Target names what the fault is done to, for the pending-fault
	// registry: the scheme and host of the target's (first) URL.
	Target string
}

// OnTrap is the action a run takes once the service is judged trapped
// (block "on_trap").
type OnTrap struct {
	// Action is TrapDrop (demand to zero), TrapRate (demand to Rate) or
	// TrapCommand (run Command, demand stays at baseline).
	Action vocab.TrapAction
	// Rate is the demand for TrapRate, first attempts per second.
	Rate float64
	// Command is the argv for TrapCommand; Env is set in its environment,
	// on top of the run's.
	Command []string
	Env     map[string]string
	// Observe is how long the run watches after the action.
	Observe time.Duration
}

// Metrics is where a run reads the service's metrics (block
// "prometheus").
type Metrics struct {
	// Embedded is the in-process server, which scrapes Scrape every
	// ScrapeInterval; otherwise Address is a Prometheus HTTP API.
	Embedded       bool
	Address        string
	Scrape         []string
	ScrapeInterval time.Duration // the embedded server's, defaults filled
	// Timeout bounds one query; 0 means the client's default.
	Timeout time.Duration
	// Queries are the queries the scenario configured (Queries' order).
	Queries []Query
	// Auth and TLS are for a remote server; nil: none.
	Auth *Auth
	TLS  *tlsfiles.Files
}

// Auth names the environment variables that hold a Prometheus
// server's credentials; the credentials never appear in a scenario.
type Auth struct{ BearerTokenEnv, UsernameEnv, PasswordEnv string }

// Brake is one stop_when condition: Query fires when it returns any
// sample or cannot be evaluated within Timeout.
type Brake struct {
	Name, Query string
	// Address is where Query is evaluated: "" for the run's own
	// Prometheus, else another server's base URL (with Auth and TLS).
	Address string
	Timeout time.Duration // 0 means the runner's default
	Auth    *Auth
	TLS     *tlsfiles.Files
}

// CheckSends reports the first host the run would reach outside the
// scenario's allow_hosts (scenarios.CheckSends: the target's, a Host or
// :authority header's, a scrape target's): refused describes it, empty
// when every host is allowed; err is a target URL that does not parse.
func (r Run) CheckSends() (refused string, err error) {
	if r.sends == nil {
		return "", nil
	}
	err = r.sends()
	var na *scenarios.NotAllowedError
	if errors.As(err, &na) {
		return na.Error(), nil
	}
	return "", err
}

// RunOf is the run's part of a scenario; New fills Test.Run with it.
func RunOf(s *scenarios.Scenario) Run {
	r := Run{
		Name: s.Name, TargetURL: targetURLText(s.Target),
		Warmup: s.Load.Warmup, Observe: s.Load.Observe, SpikeDuration: s.Load.Spike.Duration,
		Recovery:          Recovery{SuccessRatio: s.Recovery.SuccessRatio, Hold: s.Recovery.Hold},
		Secrets:           s.Secrets,
		Touches:           s.Touches,
		MaxInFlightChosen: s.Client.MaxInFlight != scenarios.DefaultMaxInFlight,
		sends:             func() error { return scenarios.CheckSends(s) },
	}
	if g := s.Gate; g.Baseline != "" {
		r.Baseline = &Baseline{Path: g.Baseline, MaxRecoveryRegression: g.MaxRecoveryRegression, MaxAmplificationRegression: g.MaxAmplificationRegression}
	}
	if n := s.Notify; n != nil {
		r.Notify = &Notify{Webhook: n.Webhook, Timeout: n.Timeout}
	}
	if f := s.Fault; f != nil {
		r.Fault = &Fault{Name: f.Name, Start: append([]string(nil), f.Start...), Stop: append([]string(nil), f.Stop...),
			Dir: f.Dir, Env: maps.Clone(f.Env), Duration: f.Duration, Timeout: f.Timeout, Target: TargetKey(s.Target)}
	}
	if ot := s.OnTrap; ot != nil {
		r.OnTrap = &OnTrap{Action: ot.Action, Rate: ot.Rate, Command: ot.Command, Env: maps.Clone(ot.Env), Observe: ot.Observe}
	}
	r.MaxDuration = s.MaxDuration
	if r.MaxDuration <= 0 {
		r.MaxDuration = r.Horizon() + ScheduleSlack
	}
	for _, c := range s.StopWhen {
		r.Brakes = append(r.Brakes, Brake{Name: c.Name, Query: c.Query, Address: c.Address, Timeout: c.Timeout,
			Auth: authOf(c.Auth), TLS: c.TLS})
	}
	if p := s.Prometheus; p != nil {
		r.Metrics = &Metrics{Embedded: embedded(p), Address: p.Address, Scrape: p.Scrape,
			ScrapeInterval: embeddedInterval(p), Timeout: p.Timeout, Queries: queriesOf(p),
			Auth: authOf(p.Auth), TLS: p.TLS}
	}
	return r
}

func authOf(a *scenarios.PrometheusAuth) *Auth {
	if a == nil {
		return nil
	}
	return &Auth{BearerTokenEnv: a.BearerTokenEnv, UsernameEnv: a.UsernameEnv, PasswordEnv: a.PasswordEnv}
}

// SensitiveValue is what a sensitive variable's value reads wherever a
// run writes or logs text.
const SensitiveValue = scenarios.SensitiveValue

// targetURLText names the target's URL in messages: the single request's,
// or the mix's first and how many there are; per-request values written
// as the scenario spells them.
func targetURLText(t scenarios.Target) string {
	mix := t.Mix()
	u := vocab.Readable(mix[0].URL, t.Slots)
	if len(mix) > 1 {
		u += fmt.Sprintf(" (and %d more requests)", len(mix)-1)
	}
	return u
}

// TargetKey is the scheme and host of the target's first URL: the key of
// a fault in the pending-fault registry, and what `trigger compare`
// checks two runs share.
func TargetKey(t scenarios.Target) string {
	u, err := url.Parse(vocab.Readable(t.Mix()[0].URL, t.Slots))
	if err != nil || u.Host == "" {
		return vocab.Readable(t.Mix()[0].URL, t.Slots)
	}
	return u.Scheme + "://" + strings.ToLower(u.Host)
}
