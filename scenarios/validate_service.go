package scenarios

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/trigger-test/trigger/vocab"
)

func (v *validator) service() {
	if !v.present("service") {
		return
	}
	s := &v.s.Service
	src := v.d.src
	hasC, hasN, hasc := src.has("service.capacity"), src.has("service.pods"), src.has("service.pod_rate")
	okC, okN, okc := src.ok("service.capacity"), src.ok("service.pods"), src.ok("service.pod_rate")

	v.errorf(hasC && s.Capacity <= 0, "service.capacity", "Value out of range",
		"capacity is C, the requests per second the service finishes when busy, and must be greater than zero. Got %g.", s.Capacity)
	v.errorf(hasC && s.Capacity > MaxCapacity, "service.capacity", "Value out of range",
		"capacity is C, the requests per second the service finishes when busy, and may be at most 1e7 (ten million per second). Got %g.", s.Capacity)
	v.errorf(hasN && s.Pods <= 0, "service.pods", "Value out of range",
		"pods is N, the replicas at baseline, and must be at least 1. Got %d.", s.Pods)
	v.errorf(hasN && s.Pods > MaxReplicas, "service.pods", "Value out of range",
		"pods is N, the replicas at baseline, and may be at most %d. Got %d.", MaxReplicas, s.Pods)
	v.errorf(hasc && s.PodRate <= 0, "service.pod_rate", "Value out of range",
		"pod_rate is c, the requests per second one pod finishes, and must be greater than zero. Got %g.", s.PodRate)
	v.errorf(hasc && s.PodRate > MaxCapacity, "service.pod_rate", "Value out of range",
		"pod_rate is c, the requests per second one pod finishes, and may be at most 1e7 (ten million per second). Got %g.", s.PodRate)
	validC := hasC && okC && s.Capacity > 0 && s.Capacity <= MaxCapacity
	validN := hasN && okN && s.Pods > 0 && s.Pods <= MaxReplicas
	validc := hasc && okc && s.PodRate > 0 && s.PodRate <= MaxCapacity

	switch {
	case !hasC && !hasN && !hasc:
		v.errorf(okC && okN && okc, "service", "Missing service capacity",
			"Give the service's capacity: capacity = C in requests per second, or pods = N and pod_rate = c (C = N × c).")
	case !hasC && hasN != hasc:
		missing, given := "pod_rate", "service.pods"
		if hasc {
			missing, given = "pods", "service.pod_rate"
		}
		v.errorf(true, given, "Incomplete service capacity",
			"pods and pod_rate go together (C = pods × pod_rate): add %s, or give capacity instead.", missing)
	case !hasC && validN && validc:
		s.Capacity = float64(s.Pods) * s.PodRate
		v.errorf(s.Capacity > MaxCapacity, "service.pod_rate", "Value out of range",
			"capacity = pods × pod_rate = %d × %g = %g; it may be at most 1e7 (ten million requests per second).", s.Pods, s.PodRate, s.Capacity)
	case validC && validN && validc:
		product := float64(s.Pods) * s.PodRate
		v.errorf(math.Abs(s.Capacity-product) > 1e-9*math.Max(s.Capacity, product), "service.capacity", "Inconsistent capacity",
			"capacity = %g but pods × pod_rate = %d × %g = %g. Give capacity alone, pods and pod_rate alone, or values that agree.",
			s.Capacity, s.Pods, s.PodRate, product)
	case validC && validN && !hasc:
		s.PodRate = s.Capacity / float64(s.Pods)
	case validC && validc && !hasN:
		n := s.Capacity / s.PodRate
		if r := math.Round(n); math.Abs(n-r) <= 1e-9*n && r >= 1 && r <= math.MaxInt32 {
			s.Pods = int(r)
		} else {
			v.errorf(true, "service.capacity", "Inconsistent capacity",
				"capacity = %g is not a whole number of pods of pod_rate = %g (%g pods). Give pods as well, or drop pod_rate.", s.Capacity, s.PodRate, n)
		}
	}

	v.nonNegDur(s.AdmissionBound, "service.admission_bound", "admission_bound",
		"b, the most work the queue may hold in seconds of capacity (0: no bound)")
	v.errorf(s.MaxReplicas < 0 || s.MaxReplicas > MaxReplicas, "service.max_replicas", "Value out of range",
		"max_replicas is the replica ceiling M and must be from 0 (unknown) to %d. Got %d.", MaxReplicas, s.MaxReplicas)
	v.errorf(s.ScalabilityPeak < 0 || s.ScalabilityPeak > MaxReplicas, "service.scalability_peak", "Value out of range",
		"scalability_peak is N_max and must be from 0 (unknown) to %d. Got %d.", MaxReplicas, s.ScalabilityPeak)
	v.errorf(s.MaxReplicas > 0 && s.Pods > 0 && s.MaxReplicas < s.Pods, "service.max_replicas", "Ceiling below baseline",
		"max_replicas = %d is below pods = %d: the service could not even run its baseline replicas.", s.MaxReplicas, s.Pods)

	v.errorf(s.Workers < 1 || s.Workers > MaxReplicas, "service.workers", "Value out of range",
		"workers is the requests one pod serves at a time and must be at least 1 and at most %d. Got %d.", MaxReplicas, s.Workers)
	v.errorf(!(s.ServiceCV > 0) || s.ServiceCV > 100, "service.service_cv", "Value out of range",
		"service_cv is the coefficient of variation of lognormal service times and must be in (0, 100]. Got %g.", s.ServiceCV)
	v.warnf(src.has("service.service_cv") && s.ServiceCV > 0 && !src.unknown["service.service_time"] && s.ServiceTime != vocab.ServiceLognormal,
		"service.service_cv", "Unused service_cv",
		"service_cv applies to lognormal service times only; service_time is %q.", s.ServiceTime)

	if a := s.Autoscaler; a != nil && v.present("service.autoscaler") {
		const p = "service.autoscaler."
		if src.has(p + "target") {
			v.fraction(a.Target, true, p+"target", "target", "u*, the utilization the scaler aims for")
		}
		v.nonNegDur(a.DeadTime, p+"dead_time", "dead_time", "τ, from ordering a pod to its first served request")
	}
}

func (v *validator) load() {
	if !v.present("load") {
		return
	}
	l := &v.s.Load
	if v.d.src.has("load.baseline") {
		v.errorf(l.Baseline <= 0, "load.baseline", "Value out of range",
			"baseline is λ, first attempts per second, and must be greater than zero. Got %g.", l.Baseline)
		v.errorf(l.Baseline > MaxBaseline, "load.baseline", "Value out of range",
			"baseline is λ, first attempts per second, and may be at most 1e6 (a million per second). Got %g.", l.Baseline)
	}
	v.nonNegDur(l.Warmup, "load.warmup", "warmup", "the time at baseline before the spike")
	v.positiveDur(l.Observe, "load.observe", "observe", "the horizon after the spike ends")
	if !v.present("load.spike") {
		return
	}
	if v.d.src.has("load.spike.multiplier") {
		v.errorf(l.Spike.Multiplier <= 1, "load.spike.multiplier", "Value out of range",
			"multiplier is k, the spike's demand as a multiple of baseline, and must be greater than 1: a spike of k ≤ 1 is no overload. Got %g.", l.Spike.Multiplier)
		v.errorf(l.Spike.Multiplier > MaxMultiplier, "load.spike.multiplier", "Value out of range",
			"multiplier is k, the spike's demand as a multiple of baseline, and may be at most %d. Got %g.", MaxMultiplier, l.Spike.Multiplier)
	}
	if v.d.src.has("load.spike.duration") {
		v.positiveDur(l.Spike.Duration, "load.spike.duration", "duration", "Δ, the spike's length")
	}
}

func (v *validator) prometheus() {
	p := v.s.Prometheus
	if p == nil || !v.present("prometheus") {
		return
	}
	embedded := p.Address == embeddedAddress
	addrOK := v.d.src.ok("prometheus.address")
	if !embedded && !v.credentials("prometheus.address", p.Address, authHint) {
		u, err := url.Parse(p.Address)
		bad := err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""
		addrOK = addrOK && !bad
		v.errorf(bad, "prometheus.address", "Invalid Prometheus address",
			"address is %q for the in-process Prometheus, or the base URL of a Prometheus HTTP API such as \"http://prometheus:9090\"; %q is neither.%s",
			embeddedAddress, p.Address, didYouMean(p.Address, []string{embeddedAddress}))
	}
	if addrOK && v.d.src.ok("prometheus.address") {
		v.warnf(!embedded && len(p.Scrape) > 0, "prometheus.scrape", "Scrape targets ignored",
			"scrape is used only with address = %q; a remote Prometheus at %q scrapes on its own schedule.", embeddedAddress, stripUserinfo(p.Address))
		v.warnf(embedded && len(p.Scrape) == 0, "prometheus", "Nothing to scrape",
			"The embedded Prometheus has no scrape targets, so every query will be empty. Add scrape = [\"http://HOST:PORT/metrics\"].")
		v.warnf(embedded && p.TLS != nil, "prometheus.tls", "TLS settings ignored",
			"tls applies to a remote Prometheus; the embedded one is in-process.")
	}
	for i, s := range p.Scrape {
		path := fmt.Sprintf("prometheus.scrape[%d]", i)
		if v.credentials(path, s, "the embedded Prometheus scrapes without any: serve the metrics without them, on an address only the run reaches") {
			continue
		}
		u, err := url.Parse(s)
		bad := err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == ""
		v.errorf(bad, path, "Invalid scrape target", "%q is not an http(s) URL of a /metrics endpoint, such as \"http://127.0.0.1:8080/metrics\".", s)
		t := &v.s.Target
		if bad || !v.present("target") || !v.d.src.ok("target.allow_hosts") || len(t.AllowHosts) == 0 {
			continue
		}
		v.errorf(!HostAllowed(t.AllowHosts, u.Hostname()), path, "Scrape target not allowed",
			"The scrape host %q is not in target.allow_hosts [%s]. A run reaches only the hosts allowed: add %q to allow_hosts, or scrape the service where it is allowed.",
			u.Hostname(), strings.Join(quoted(t.AllowHosts), ", "), NormalizeHost(u.Hostname()))
	}
	v.positiveDur(p.ScrapeInterval, "prometheus.scrape_interval", "scrape_interval", "how often the embedded Prometheus scrapes")
	v.errorf(p.ScrapeInterval > 0 && p.ScrapeInterval < MinScrapeInterval, "prometheus.scrape_interval", "Value out of range",
		"scrape_interval may be no shorter than %s: scraping more often loads the service it measures and the run's own Prometheus, and signals are no fresher than the service's own updates. Got %s.",
		MinScrapeInterval, p.ScrapeInterval)
	v.positiveDur(p.Timeout, "prometheus.timeout", "timeout", "the limit on one query")
	for _, q := range []struct{ name, text string }{
		{"ingress", p.Ingress}, {"first_attempts", p.FirstAttempts}, {"served", p.Served},
		{"abandoned", p.Abandoned}, {"wait", p.Wait}, {"pods", p.Pods},
	} {
		v.errorf(len(q.text) > MaxQueryBytes, "prometheus."+q.name, "Query too long",
			"The query is %d bytes; a query may be at most %d. Use a recording rule for a long expression.", len(q.text), MaxQueryBytes)
	}
	v.warnf(strings.TrimSpace(p.Ingress) == "", "prometheus", "No ingress query",
		"Without ingress (attempts per second arriving at the service) a run cannot measure A_fail, the amplification the service really suffers.")
	v.auth(p.Auth, "prometheus.auth")
}

// authHint says where credentials for a Prometheus go.
const authHint = "put them in an auth block, which names the environment variables that hold them"

// auth checks an auth block (of prometheus or stop_when) at path.
func (v *validator) auth(a *PrometheusAuth, path string) {
	if a == nil || !v.present(path) {
		return
	}
	v.errorf(a.BearerTokenEnv != "" && (a.UsernameEnv != "" || a.PasswordEnv != ""), path+".bearer_token_env",
		"Conflicting credentials", "Give either bearer_token_env or username_env and password_env, not both.")
	v.errorf(a.BearerTokenEnv == "" && (a.UsernameEnv == "") != (a.PasswordEnv == ""), path, "Incomplete credentials",
		"Basic authentication needs both username_env and password_env.")
}

func (v *validator) recovery() {
	if !v.present("recovery") {
		return
	}
	r := &v.s.Recovery
	v.fraction(r.SuccessRatio, true, "recovery.success_ratio", "success_ratio", "the first-attempt success ratio that counts as recovered")
	v.nonNegDur(r.Hold, "recovery.hold", "hold", "how long the ratio must hold")
}

func (v *validator) onTrap() {
	t := v.s.OnTrap
	if t == nil || !v.present("on_trap") {
		return
	}
	src := v.d.src
	if src.has("on_trap.action") {
		v.oneOf("on_trap.action", "on_trap action", t.Action, onTrapActions)
	}
	v.errorf(t.Rate < 0, "on_trap.rate", "Value out of range", "rate is first attempts per second after the action and must not be negative. Got %g.", t.Rate)
	v.errorf(t.Rate > MaxBaseline, "on_trap.rate", "Value out of range", "rate is first attempts per second after the action and may be at most 1e6 (a million per second). Got %g.", t.Rate)
	switch t.Action {
	case "rate":
		v.errorf(!src.has("on_trap.rate") && src.ok("on_trap.rate"), "on_trap", "Missing rate",
			"action = \"rate\" sets demand to rate first attempts per second: add rate = ..., e.g. rate = 10.")
	case "command":
		v.errorf(!src.has("on_trap.command") && src.ok("on_trap.command"), "on_trap", "Missing command",
			"action = \"command\" runs a command: add command = [\"PROGRAM\", \"ARG\", ...].")
		v.errorf(src.has("on_trap.command") && (len(t.Command) == 0 || strings.TrimSpace(t.Command[0]) == ""), "on_trap.command", "Empty command",
			"command is an argv list whose first element is the program to run.")
	}
	v.warnf(t.Action != "rate" && src.has("on_trap.rate") && contains(onTrapActions, t.Action), "on_trap.rate", "Setting ignored",
		"rate is used only with action = \"rate\"; this on_trap has action = %q.", t.Action)
	v.warnf(t.Action != "command" && src.has("on_trap.command") && contains(onTrapActions, t.Action), "on_trap.command", "Setting ignored",
		"command is used only with action = \"command\"; this on_trap has action = %q.", t.Action)
	v.positiveDur(t.Observe, "on_trap.observe", "observe", "how long to watch after the action")
}

func (v *validator) gate() {
	if !v.present("gate") {
		return
	}
	g := &v.s.Gate
	v.nonNegDur(g.MaxRecovery, "gate.max_recovery", "max_recovery", "the recovery budget (0: none)")
	v.errorf(g.MaxAmplification < 0 || (g.MaxAmplification > 0 && g.MaxAmplification < 1), "gate.max_amplification", "Value out of range",
		"max_amplification is the largest A the gate accepts, 0 for none; A is at least 1 (every request is one attempt), so it must be 0 or ≥ 1. Got %g.",
		g.MaxAmplification)
}
