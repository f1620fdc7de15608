package fleet

import (
	"cmp"
	"context"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/trigger-test/trigger/loadgen"
)

// Config configures a Coordinator.
type Config struct {
	RunID  string
	Agents int    // N ≥ 1
	Engine Engine // launches the agents
	// Listen is the address the coordinator serves on; "" = 127.0.0.1:0.
	Listen string
	// Advertise is the base URL agents dial (a real cluster reaches the
	// coordinator at another address), https://; "" = https:// and the
	// listening address.
	Advertise string
	// File, Source and Vars are the scenario as read: its file name, HCL
	// text and --var overrides. Seed is the run's seed.
	File   string
	Source []byte
	Vars   map[string]string
	Seed   uint64
	// MaxInFlight is the scenario's max_in_flight (for Bounds).
	MaxInFlight int
	// MaxDuration is how long after the start instant agents stop by themselves.
	MaxDuration time.Duration
	// JoinTimeout bounds how long Launch waits for every agent to be
	// ready; 0 = 30 s.
	JoinTimeout time.Duration
	// StartLead is how far ahead of the moment every agent is ready the
	// start instant is set; 0 = 500 ms.
	StartLead time.Duration
	// ReplanLead is how far ahead a replan takes effect, so every agent
	// hears of it before; 0 = 750 ms (three reports).
	ReplanLead time.Duration
	// Logf prints notes for the user; nil = none.
	Logf func(format string, args ...any)
}

// ErrAgentLost: an agent stopped reporting, exited or failed during the run.
var ErrAgentLost = errors.New("agent lost")

// Coordinator runs the agents of one run and merges their seconds into
// one timeline. Its methods Run, Elapsed, TimelineSince, Cohorts, Replan,
// Bounds and Handler are what the runner drives, as it drives one
// in-process driver.
type Coordinator struct {
	cfg   Config
	keys  []string // each agent's key, hex (AgentSpec.Keys)
	cert  string   // the run's certificate's fingerprint (AgentSpec.CertSHA256)
	url   string
	srv   *http.Server
	ln    net.Listener
	serve chan struct{} // closed when the server has returned

	mu      sync.Mutex
	agents  []*agentState
	start   time.Time // the common start instant (monotonic); zero until Run
	stop    bool
	replan  *Replan
	closed  bool
	changed chan struct{} // pinged on every report
}

// agentState is what the coordinator knows of one agent; guarded by mu.
type agentState struct {
	joined, ready, final bool
	lost                 string // why it was declared lost; "" while not
	lastSeen             time.Time
	lastDiagnosed        time.Time // when a late agent was last asked about (see checkSilence)
	seq                  uint64    // the last sequence number accepted from it (auth.go)
	key                  []byte    // its key
	startedUnixNS        int64
	rows                 []loadgen.Second
	sums                 running // rows summed (validate.go)
	cohorts              []loadgen.Cohort
}

// NewCoordinator listens and serves the protocol; Launch starts the agents.
func NewCoordinator(cfg Config) (*Coordinator, error) {
	if cfg.Agents < 1 {
		return nil, fmt.Errorf("fleet: %d agents; want at least 1", cfg.Agents)
	}
	if cfg.Engine == nil {
		return nil, errors.New("fleet: no engine")
	}
	cfg.JoinTimeout = cmp.Or(cfg.JoinTimeout, 30*time.Second)
	cfg.StartLead = cmp.Or(cfg.StartLead, 500*time.Millisecond)
	cfg.ReplanLead = cmp.Or(cfg.ReplanLead, 750*time.Millisecond)
	var advHost string
	if cfg.Advertise != "" {
		u, err := url.Parse(cfg.Advertise)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("fleet: advertise %q: want an https:// URL (the agents speak TLS to the coordinator)", cfg.Advertise)
		}
		advHost = u.Hostname()
	}
	ln, err := net.Listen("tcp", cmp.Or(cfg.Listen, "127.0.0.1:0"))
	if err != nil {
		return nil, fmt.Errorf("fleet: listen: %w", err)
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	cert, fp, err := newRunCert([]string{host, advHost})
	if err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("fleet: the run's certificate: %w", err)
	}
	c := &Coordinator{cfg: cfg, cert: fp, ln: ln, serve: make(chan struct{}), changed: make(chan struct{}, 1)}
	c.url = cmp.Or(strings.TrimSuffix(cfg.Advertise, "/"), "https://"+ln.Addr().String())
	for range cfg.Agents {
		k := newKey()
		b, _ := hex.DecodeString(k)
		c.keys = append(c.keys, k)
		c.agents = append(c.agents, &agentState{key: b})
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AssignmentPath, c.handleAssignment)
	mux.HandleFunc("POST "+ReportPath, c.handleReport)
	c.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second,
		// A peer that fails the handshake (a client that does not trust
		// the certificate) is no news for the user.
		ErrorLog: log.New(io.Discard, "", 0)}
	tln := tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13})
	go func() { defer close(c.serve); _ = c.srv.Serve(tln) }()
	return c, nil
}

// ListenAddr is the address the coordinator listens on (URL may be
// another: a proxy's, a Service's).
func (c *Coordinator) ListenAddr() string { return c.ln.Addr().String() }

// URL is the base URL agents dial.
func (c *Coordinator) URL() string { return c.url }

// Spec is what the engine gets to launch the agents.
func (c *Coordinator) Spec() AgentSpec {
	return AgentSpec{RunID: c.cfg.RunID, Agents: c.cfg.Agents, Coordinator: c.url, CertSHA256: c.cert,
		Keys: append([]string(nil), c.keys...), MaxDuration: c.cfg.MaxDuration + Silence}
}

// Launch starts the agents and waits until every one is ready (its
// driver built, the allowlist checked), so nothing is sent before all
// can send. An agent that reports an error, exits or does not join within
// JoinTimeout fails it, named with what the engine knows.
func (c *Coordinator) Launch(ctx context.Context) error {
	if err := c.cfg.Engine.Start(ctx, c.Spec()); err != nil {
		return fmt.Errorf("fleet: %s engine: %w", c.cfg.Engine.Name(), err)
	}
	deadline := time.NewTimer(c.cfg.JoinTimeout)
	defer deadline.Stop()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	for {
		c.mu.Lock()
		var waiting []int
		var failed error
		for i, a := range c.agents {
			switch {
			case a.lost != "":
				failed = fmt.Errorf("%s: %s", AgentName(i), a.lost)
			case !a.ready:
				waiting = append(waiting, i)
			}
		}
		c.mu.Unlock()
		if failed != nil {
			return fmt.Errorf("fleet: %w", failed)
		}
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("fleet: not ready within %s: %s", c.cfg.JoinTimeout, c.describe(ctx, waiting))
		case <-poll.C:
			// An agent process that exited before joining is lost at once.
			for _, i := range waiting {
				if d := c.cfg.Engine.Diagnose(ctx, i); Exited(d) {
					c.markLost(i, d)
				}
			}
		}
	}
}

// describe names the agents and what the engine knows of each.
func (c *Coordinator) describe(ctx context.Context, indexes []int) string {
	var parts []string
	for _, i := range indexes {
		p := AgentName(i)
		if d := c.cfg.Engine.Diagnose(ctx, i); d != "" {
			p += " (" + d + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

func (c *Coordinator) markLost(i int, why string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a := c.agents[i]; a.lost == "" && !a.final {
		a.lost = why
	}
}

// Run sets the common start instant, watches the agents and returns once
// every agent has sent its final report or is lost: after ctx ends (the
// agents are told to stop), after the schedule ends, or at once after an
// agent is lost (the others are told to stop). A lost agent makes the
// error wrap ErrAgentLost, naming it.
func (c *Coordinator) Run(ctx context.Context) error {
	c.mu.Lock()
	c.start = time.Now().Add(c.cfg.StartLead)
	now := time.Now()
	for _, a := range c.agents {
		a.lastSeen = now // silence counts from the start, not from the join
	}
	c.mu.Unlock()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if ctx.Err() != nil {
			c.setStop()
		}
		c.checkSilence()
		c.mu.Lock()
		done, lost := true, []int(nil)
		for i, a := range c.agents {
			if a.lost != "" {
				lost = append(lost, i)
			} else if !a.final {
				done = false
			}
		}
		if lost != nil {
			c.stop = true
		}
		c.mu.Unlock()
		if done {
			if lost != nil {
				return fmt.Errorf("%w: %s", ErrAgentLost, c.lostNames(lost))
			}
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		case <-c.changed:
		}
	}
}

func (c *Coordinator) setStop() {
	c.mu.Lock()
	c.stop = true
	c.mu.Unlock()
}

// lateAfter is how long an agent may go unheard (three report periods)
// before the coordinator asks its engine whether it still runs.
const lateAfter = 3 * ReportEvery

// checkSilence declares lost every agent not heard of for Silence, and at
// once every late agent whose engine says it exited (an agent process that
// died is not waited for); a late agent's engine is asked at most once per
// lateAfter, so a Kubernetes API is not called on every tick.
func (c *Coordinator) checkSilence() {
	now := time.Now()
	c.mu.Lock()
	var silent, late []int
	for i, a := range c.agents {
		if a.lost != "" || a.final {
			continue
		}
		switch quiet := now.Sub(a.lastSeen); {
		case quiet > Silence:
			silent = append(silent, i)
		case quiet > lateAfter && now.Sub(a.lastDiagnosed) > lateAfter:
			a.lastDiagnosed = now
			late = append(late, i)
		}
	}
	c.mu.Unlock()
	for _, i := range late {
		if d := c.cfg.Engine.Diagnose(context.Background(), i); Exited(d) {
			c.markLost(i, d)
			c.logf("%s lost: %s", AgentName(i), d)
		}
	}
	for _, i := range silent {
		why := fmt.Sprintf("no report for %s", Silence)
		if d := c.cfg.Engine.Diagnose(context.Background(), i); d != "" {
			why += "; " + d
		}
		c.markLost(i, why)
		c.logf("%s lost: %s", AgentName(i), why)
	}
}

func (c *Coordinator) lostNames(idx []int) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	for _, i := range idx {
		parts = append(parts, fmt.Sprintf("%s (%s)", AgentName(i), c.agents[i].lost))
	}
	return strings.Join(parts, ", ")
}

// Elapsed is the time since the common start instant (0 before it).
func (c *Coordinator) Elapsed() time.Duration {
	c.mu.Lock()
	start := c.start
	c.mu.Unlock()
	if start.IsZero() {
		return 0
	}
	return max(0, time.Since(start))
}

// TimelineSince returns the merged seconds from index n on that every
// agent still running has reported (an agent that has ended or is lost
// holds none back).
func (c *Coordinator) TimelineSince(n int) []loadgen.Second {
	c.mu.Lock()
	defer c.mu.Unlock()
	ready, longest, running := -1, 0, false
	for _, a := range c.agents {
		longest = max(longest, len(a.rows))
		if a.lost == "" && !a.final {
			running = true
			if ready < 0 || len(a.rows) < ready {
				ready = len(a.rows)
			}
		}
	}
	if !running {
		ready = longest
	}
	var out []loadgen.Second
	for i := max(n, 0); i < ready; i++ {
		var secs []loadgen.Second
		for _, a := range c.agents {
			if i < len(a.rows) {
				secs = append(secs, a.rows[i])
			}
		}
		out = append(out, mergeSeconds(i, secs))
	}
	return out
}

// Cohorts returns the merged cohorts from index n on, as the agents last
// reported them (at most ReportEvery old).
func (c *Coordinator) Cohorts(n int) []loadgen.Cohort {
	c.mu.Lock()
	defer c.mu.Unlock()
	each := make([][]loadgen.Cohort, len(c.agents))
	for i, a := range c.agents {
		each[i] = a.cohorts
	}
	return mergeCohorts(max(n, 0), each)
}

// Replan replaces the rest of every agent's schedule (the whole run's
// rates; each agent takes its share) from ReplanLead ahead, and returns
// that instant of the run's clock: when the new schedule starts.
func (c *Coordinator) Replan(stages []loadgen.Stage) time.Duration {
	at := c.Elapsed() + c.cfg.ReplanLead
	c.mu.Lock()
	defer c.mu.Unlock()
	seq := 1
	if c.replan != nil {
		seq = c.replan.Seq + 1
	}
	c.replan = &Replan{Seq: seq, AtS: at.Seconds(), Stages: append([]loadgen.Stage(nil), stages...)}
	return at
}

// Bounds are the run's bounds on attempts in flight: ⌈max_in_flight/N⌉
// per agent (each agent may lower its own to its descriptor limit and says
// so on its standard error).
func (c *Coordinator) Bounds() loadgen.Bounds {
	n := c.cfg.Agents
	per := (c.cfg.MaxInFlight + n - 1) / n
	return loadgen.Bounds{MaxInFlight: per * n, Requested: c.cfg.MaxInFlight}
}

// Handler serves no metrics: with agents, the trigger_* collectors live in
// the agents' processes and are not scraped (the timeline has the same counts).
func (c *Coordinator) Handler() http.Handler { return http.NotFoundHandler() }

// Close stops the agents (through the engine) and the server.
func (c *Coordinator) Close(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed, c.stop = true, true
	c.mu.Unlock()
	err := c.cfg.Engine.Stop(ctx)
	sctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if serr := c.srv.Shutdown(sctx); serr != nil {
		_ = c.srv.Close()
	}
	<-c.serve
	return err
}

// Kill ends the server at once, as if the coordinator's process died
// (tests: the agents must stop by themselves).
func (c *Coordinator) Kill() {
	_ = c.srv.Close()
	<-c.serve
}

func (c *Coordinator) logf(format string, args ...any) {
	if c.cfg.Logf != nil {
		c.cfg.Logf(format, args...)
	}
}
