package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/scenarios"
)

// AgentConfig configures one agent (trigger agent).
type AgentConfig struct {
	Coordinator string // base URL, https://
	Index       int
	// Key is the agent's key, hex (AgentSpec.Keys[Index]): it signs every
	// request.
	Key string
	// CertSHA256 is the coordinator's certificate's fingerprint
	// (AgentSpec.CertSHA256): any other certificate is refused.
	CertSHA256 string
	// WrapTransport, when set, wraps the pinned transport that talks to
	// the coordinator (tests: an agent killed at once).
	WrapTransport func(http.RoundTripper) http.RoundTripper
	// Transport overrides the driver's HTTP transport (tests).
	Transport http.RoundTripper
	// Logf prints notes (the agent's standard error); nil = none.
	Logf func(format string, args ...any)
}

// ErrCoordinatorLost: no answer from the coordinator for Silence; the agent
// stopped its driver.
var ErrCoordinatorLost = errors.New("no answer from the coordinator")

// agent is one agent while it runs.
type agent struct {
	cfg    AgentConfig
	client *http.Client
	key    []byte
	seq    uint64    // the last request's sequence number
	lastOK time.Time // the last Control received
}

// RunAgent runs one agent: it reads its assignment, builds its share of the
// load and checks the allowlist, reports ready, starts its driver at the
// common start instant, and reports its seconds every ReportEvery until
// its driver ends (the schedule's end, max_duration, the coordinator's
// stop, ctx); then it sends its final report. Without an answer from the
// coordinator for Silence it stops its driver and returns
// ErrCoordinatorLost.
func RunAgent(ctx context.Context, cfg AgentConfig) error {
	a, err := newAgent(cfg)
	if err != nil {
		return err
	}
	asg, err := a.assignment(ctx)
	if err != nil {
		return err
	}
	drv, err := a.prepare(ctx, asg)
	if err != nil {
		// Best effort: the coordinator names the agent and the reason.
		_, _ = a.post(ctx, Report{Index: cfg.Index, Error: err.Error()})
		return err
	}
	return a.loop(ctx, asg, drv)
}

// newAgent checks cfg and builds the agent's pinned client.
func newAgent(cfg AgentConfig) (*agent, error) {
	if u, err := url.Parse(cfg.Coordinator); err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("coordinator %q: want an https:// URL", cfg.Coordinator)
	}
	key, err := parseKey(cfg.Key)
	if err != nil {
		return nil, err
	}
	tr, err := pinnedTransport(cfg.CertSHA256)
	if err != nil {
		return nil, err
	}
	var rt http.RoundTripper = tr
	if cfg.WrapTransport != nil {
		rt = cfg.WrapTransport(tr)
	}
	return &agent{cfg: cfg, client: &http.Client{Transport: rt}, key: key, lastOK: time.Now()}, nil
}

// assignment asks for the assignment until it comes or Silence passes.
func (a *agent) assignment(ctx context.Context) (Assignment, error) {
	var asg Assignment
	path := AssignmentPath + "?index=" + strconv.Itoa(a.cfg.Index)
	for {
		err := a.call(ctx, http.MethodGet, path, nil, &asg)
		if err == nil {
			return asg, nil
		}
		if errors.Is(err, ErrCertMismatch) {
			return asg, fmt.Errorf("assignment: %w", err)
		}
		if time.Since(a.lastOK) > Silence || ctx.Err() != nil {
			return asg, fmt.Errorf("%w: assignment: %v", ErrCoordinatorLost, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(ReportEvery):
		}
	}
}

// prepare builds the agent's driver from its assignment: the scenario read
// and converted as the coordinator did, the allowlist checked, a gRPC
// target's message types resolved (by reflection, from this agent), its
// share.
func (a *agent) prepare(ctx context.Context, asg Assignment) (*loadgen.Driver, error) {
	if asg.Agents < 1 || asg.Index != a.cfg.Index {
		return nil, fmt.Errorf("assignment for agent %d of %d, but this is agent %d", asg.Index, asg.Agents, a.cfg.Index)
	}
	s, err := scenarios.Parse(asg.File, asg.Source, asg.Vars)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if err := scenarios.CheckSends(s); err != nil {
		return nil, fmt.Errorf("%w; nothing was sent", err)
	}
	t, err := convert.New(s)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if t.HasGRPC() {
		if _, err := t.ResolveGRPC(ctx); err != nil {
			return nil, fmt.Errorf("grpc descriptors: %w; no load was sent", err)
		}
	}
	dc := Share(t.Driver, asg.Index, asg.Agents, asg.Seed)
	dc.Transport = a.cfg.Transport
	drv, err := loadgen.NewDriver(dc)
	if err != nil {
		return nil, fmt.Errorf("driver: %w", err)
	}
	if b := drv.Bounds(); b.Clamped {
		a.logf("%s", b.Reason)
	}
	return drv, nil
}

// loop reports until the driver has ended and the final report is in, or
// the coordinator is lost.
func (a *agent) loop(ctx context.Context, asg Assignment, drv *loadgen.Driver) error {
	drvCtx, stopDriver := context.WithCancel(context.WithoutCancel(ctx))
	defer stopDriver()
	var (
		done        = make(chan error, 1)
		launched    bool
		startedAt   time.Time
		have, cfrom int
		applied     int
		ended       bool
		stopped     bool   // the coordinator asked the driver to stop
		interrupted string // why the agent stopped it first
	)
	// The driver's goroutine is owned here: every return below cancels
	// drvCtx and waits for it.
	defer func() {
		stopDriver()
		if launched && !ended {
			<-done
		}
	}()
	tick := time.NewTicker(ReportEvery)
	defer tick.Stop()
	for {
		if e := drv.Elapsed(); startedAt.IsZero() && e > 0 {
			// The wall-clock instant the driver's clock started.
			startedAt = time.Now().Add(-e)
		}
		rep := Report{Index: a.cfg.Index, Ready: true, Interrupted: interrupted}
		if !startedAt.IsZero() {
			rep.StartedUnixNS = startedAt.UnixNano()
			secs := drv.TimelineSince(have)
			rep.From, rep.Seconds = have, secs[:min(len(secs), MaxReportSeconds)]
			rep.CohortsFrom, rep.Cohorts = cfrom, drv.Cohorts(cfrom)
			rep.Final = ended && len(secs) <= MaxReportSeconds
		}
		ctl, err := a.post(ctx, rep)
		switch {
		case err != nil && time.Since(a.lastOK) >= Silence:
			stopDriver()
			return fmt.Errorf("%w for %s: %v", ErrCoordinatorLost, Silence, err)
		case err == nil:
			if rep.Final && ctl.Have >= rep.From+len(rep.Seconds) {
				return nil
			}
			have = ctl.Have
			cfrom = closedCohorts(cfrom, rep.Cohorts)
			if !launched && ctl.StartUnixNS != 0 {
				launched = true
				go a.drive(drvCtx, drv, time.Unix(0, ctl.StartUnixNS), time.Duration(asg.MaxDurationS*float64(time.Second)), done)
			}
			if r := ctl.Replan; r != nil && r.Seq > applied {
				applied = r.Seq
				drv.ReplanAt(time.Duration(r.AtS*float64(time.Second)), ShareStages(r.Stages, asg.Agents))
			}
			if ctl.Stop {
				stopped = true
				stopDriver()
				if !launched {
					return nil
				}
			}
		}
		// Wait for the next report, the driver's end, or the
		// moment the coordinator has been silent too long.
		silence := time.NewTimer(time.Until(a.lastOK.Add(Silence)))
		select {
		case <-tick.C:
		case <-done:
			ended = true
		case <-silence.C:
		case <-ctx.Done():
			if !stopped && interrupted == "" {
				interrupted = "stopped by a signal before the run ended (" + context.Cause(ctx).Error() + ")"
			}
			stopDriver()
		}
		silence.Stop()
	}
}

// drive starts the driver at start and runs it for at most maxDuration.
func (a *agent) drive(ctx context.Context, drv *loadgen.Driver, start time.Time, maxDuration time.Duration, done chan<- error) {
	if wait := time.Until(start); wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	if maxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, maxDuration)
		defer cancel()
	}
	done <- drv.Run(ctx)
}

// closedCohorts moves from past the cohorts that are closed (no request
// open) and not the current one: they no longer change.
func closedCohorts(from int, cs []loadgen.Cohort) int {
	for k := 0; k+1 < len(cs) && cs[k].Open == 0; k++ {
		from = cs[k].Index + 1
	}
	return from
}

// post sends a report and reads the Control, bounded so the silence
// deadline is kept.
func (a *agent) post(ctx context.Context, rep Report) (Control, error) {
	var ctl Control
	body, err := json.Marshal(rep)
	if err != nil {
		return ctl, err
	}
	err = a.call(ctx, http.MethodPost, ReportPath, body, &ctl)
	return ctl, err
}

// call makes one signed request (path: with its query) to the
// coordinator within a second (and never past the silence deadline) and
// decodes its answer.
func (a *agent) call(ctx context.Context, method, path string, body []byte, out any) error {
	deadline := min(time.Second, max(time.Until(a.lastOK.Add(Silence)), 10*time.Millisecond))
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deadline)
	defer cancel()
	url := strings.TrimSuffix(a.cfg.Coordinator, "/") + path
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	a.seq++
	req.Header.Set("Authorization", authHeader(a.key, method, req.URL.RequestURI(), a.cfg.Index, a.seq, body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, bytes.TrimSpace(msg))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxBody)).Decode(out); err != nil {
		return err
	}
	a.lastOK = time.Now()
	return nil
}

func (a *agent) logf(format string, args ...any) {
	if a.cfg.Logf != nil {
		a.cfg.Logf(format, args...)
	}
}
