package fleet_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/trigger-test/trigger/fleet"
	"github.com/trigger-test/trigger/fleet/fleettest"
	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/loadgen"
)

// relay is a TCP proxy on loopback that keeps every byte it carries, both
// ways: what a machine between the coordinator and its agents sees.
type relay struct {
	ln   net.Listener
	mu   sync.Mutex
	seen bytes.Buffer
	wg   sync.WaitGroup
}

func startRelay(t *testing.T, target func() string) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{ln: ln}
	r.wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.DialTimeout("tcp", target(), time.Second)
			if err != nil {
				in.Close()
				continue
			}
			copyKeep := func(dst, src net.Conn) {
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						r.mu.Lock()
						r.seen.Write(buf[:n])
						r.mu.Unlock()
						if _, werr := dst.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				dst.Close()
				src.Close()
			}
			r.wg.Go(func() { copyKeep(out, in) })
			r.wg.Go(func() { copyKeep(in, out) })
		}
	})
	t.Cleanup(func() { ln.Close(); r.wg.Wait() })
	return r
}

func (r *relay) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Clone(r.seen.Bytes())
}

// A relay between the coordinator and its agents sees none of what they
// say in clear: not the agents' keys, not the scenario's variables, not
// its webhook. The agents speak TLS to the coordinator's certificate.
func TestFleetRelaySeesNoSecrets(t *testing.T) {
	const secret, webhook = "hunter2-sensitive-value", "https://hooks.example.com/services/T000/B000/XXXX"
	src := append(scenario("http://127.0.0.1:1", 20, "30s"), fmt.Appendf(nil, `
variable "token" {
  sensitive = true
  default   = "x"
}
notify { webhook = %q }
`, webhook)...)
	var coord *fleet.Coordinator
	var addr sync.Mutex
	rl := startRelay(t, func() string { addr.Lock(); defer addr.Unlock(); return coord.ListenAddr() })
	eng := &fleettest.Engine{Transport: okRT{}}
	addr.Lock()
	c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: 2, Engine: eng, File: "fleet.hcl", Source: src,
		Vars: map[string]string{"token": secret}, Seed: 7, MaxInFlight: 100, MaxDuration: 30 * time.Second,
		JoinTimeout: 10 * time.Second, Advertise: "https://" + rl.ln.Addr().String(), Logf: t.Logf})
	coord = c
	addr.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Launch(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testwait.For(t, 10*time.Second, 20*time.Millisecond, "2 merged seconds", func() bool { return len(c.TimelineSince(0)) >= 2 })
	cancel()
	_ = testwait.Receive(t, done, 10*time.Second, "Run to return")
	seen := rl.bytes()
	if len(seen) < 1000 {
		t.Fatalf("the relay carried %d bytes: the agents did not go through it", len(seen))
	}
	spec := eng.Spec()
	for what, s := range map[string]string{"agent-0's key": spec.Keys[0], "agent-1's key": spec.Keys[1],
		"the sensitive variable": secret, "the webhook": webhook, "the scenario": `allow_hosts`, "a report": `"cohorts_from"`} {
		if bytes.Contains(seen, []byte(s)) {
			t.Errorf("the relay saw %s in clear", what)
		}
	}
}

// An agent refuses any certificate but the one it pinned: pinned to
// another, it refuses the coordinator's; behind a proxy that terminates
// TLS with its own certificate (a relay reading the traffic), it refuses
// the proxy's. Either way it never gets its assignment, and Launch fails.
func TestFleetAgentRefusesOtherCertificate(t *testing.T) {
	t.Run("another pin", func(t *testing.T) {
		eng := &fleettest.Engine{Transport: okRT{}, Edit: func(c *fleet.AgentConfig) {
			c.CertSHA256 = strings.Repeat("ab", 32)
		}}
		c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: 1, Engine: eng, File: "f.hcl",
			Source: scenario("http://127.0.0.1:1", 10, "3s"), JoinTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		if err := c.Launch(context.Background()); err == nil {
			t.Fatal("Launch succeeded with an agent pinned to another certificate")
		}
		if err := eng.Err(0); !errors.Is(err, fleet.ErrCertMismatch) {
			t.Errorf("agent: %v, want ErrCertMismatch", err)
		}
	})
	t.Run("a TLS-terminating proxy", func(t *testing.T) {
		var target atomic.Value
		proxied := atomic.Int64{}
		px := httptest.NewTLSServer(&httputil.ReverseProxy{
			Rewrite: func(r *httputil.ProxyRequest) {
				proxied.Add(1)
				r.SetURL(target.Load().(*url.URL))
			},
			Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}},
		})
		defer px.Close()
		eng := &fleettest.Engine{Transport: okRT{}}
		c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: 1, Engine: eng, File: "f.hcl",
			Source: scenario("http://127.0.0.1:1", 10, "3s"), JoinTimeout: 5 * time.Second, Advertise: px.URL})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(context.Background())
		target.Store(&url.URL{Scheme: "https", Host: c.ListenAddr()})
		if err := c.Launch(context.Background()); err == nil {
			t.Fatal("Launch succeeded through a proxy with its own certificate")
		}
		if err := eng.Err(0); !errors.Is(err, fleet.ErrCertMismatch) {
			t.Errorf("agent: %v, want ErrCertMismatch", err)
		}
		if n := proxied.Load(); n != 0 {
			t.Errorf("the proxy got %d requests from the agent, want none", n)
		}
	})
}

// nopEngine starts nothing: the test speaks the agents' protocol itself.
type nopEngine struct{ spec fleet.AgentSpec }

func (e *nopEngine) Name() string { return "local" }
func (e *nopEngine) Start(_ context.Context, spec fleet.AgentSpec) error {
	e.spec = spec
	return nil
}
func (e *nopEngine) Diagnose(context.Context, int) string { return "" }
func (e *nopEngine) Stop(context.Context) error           { return nil }

// fake is the test playing agent index with key.
type fake struct {
	t      *testing.T
	spec   fleet.AgentSpec
	client *http.Client
	seq    uint64
}

func newFake(t *testing.T, spec fleet.AgentSpec) *fake {
	// The test trusts the coordinator's certificate by its fingerprint,
	// as the agents do.
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}
	t.Cleanup(tr.CloseIdleConnections)
	return &fake{t: t, spec: spec, client: &http.Client{Transport: tr, Timeout: 5 * time.Second}}
}

// send makes one request signed by key as agent index with sequence
// number seq (no signature when key is ""), and returns the status and
// the answer's body.
func (f *fake) send(method, path string, body []byte, index int, key string, seq uint64) (int, []byte) {
	f.t.Helper()
	req, err := http.NewRequest(method, f.spec.Coordinator+path, bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	if key != "" {
		if err := fleet.Sign(req, key, index, seq, body); err != nil {
			f.t.Fatal(err)
		}
	}
	resp, err := f.client.Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b
}

// as sends as agent 0 with its own key and the next sequence number.
func (f *fake) as(method, path string, body []byte) (int, []byte) {
	f.seq++
	return f.send(method, path, body, 0, f.spec.Keys[0], f.seq)
}

func (f *fake) report(rep fleet.Report) (int, fleet.Control) {
	f.t.Helper()
	b, _ := json.Marshal(rep)
	code, out := f.as(http.MethodPost, fleet.ReportPath, b)
	var ctl fleet.Control
	if code == http.StatusOK {
		if err := json.Unmarshal(out, &ctl); err != nil {
			f.t.Fatal(err)
		}
	}
	return code, ctl
}

// startFake starts a coordinator of n agents the test plays; with
// launch, agent 0 joins and reports ready, and Run runs (its result in
// done).
func startFake(t *testing.T, n int) (*fleet.Coordinator, *fake) {
	t.Helper()
	eng := &nopEngine{}
	c, err := fleet.NewCoordinator(fleet.Config{RunID: "t", Agents: n, Engine: eng, File: "f.hcl",
		Source: scenario("http://127.0.0.1:1", 10, "3s"), MaxDuration: 30 * time.Second, JoinTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	if err := eng.Start(context.Background(), c.Spec()); err != nil {
		t.Fatal(err)
	}
	return c, newFake(t, c.Spec())
}

// running is startFake with agent 0 joined, ready and started: Run runs,
// its result in the channel.
func running(t *testing.T) (*fleet.Coordinator, *fake, <-chan error) {
	t.Helper()
	c, f := startFake(t, 1)
	if code, _ := f.as(http.MethodGet, fleet.AssignmentPath+"?index=0", nil); code != http.StatusOK {
		t.Fatalf("join: %d", code)
	}
	if code, _ := f.report(fleet.Report{Index: 0, Ready: true}); code != http.StatusOK {
		t.Fatalf("ready: %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if err := c.Launch(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	testwait.For(t, 5*time.Second, 10*time.Millisecond, "the start instant", func() bool {
		_, ctl := f.report(fleet.Report{Index: 0, Ready: true})
		return ctl.StartUnixNS != 0
	})
	return c, f, done
}

// Requests without a valid signature are refused (401 without one, 403
// with a wrong one or an unknown agent's) and change nothing; the old
// bearer token is no credential.
func TestFleetRefusesUnauthenticated(t *testing.T) {
	c, f := startFake(t, 2)
	spec := c.Spec()
	body := []byte(`{"index":0,"ready":true}`)
	for _, tc := range []struct {
		name  string
		edit  func(*http.Request)
		index int
		key   string
		want  int
	}{
		{"no header", nil, 0, "", http.StatusUnauthorized},
		{"bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+spec.Keys[0]) }, 0, "", http.StatusUnauthorized},
		{"another agent's key", nil, 0, spec.Keys[1], http.StatusForbidden},
		{"a made-up key", nil, 0, strings.Repeat("0", 64), http.StatusForbidden},
		{"no such agent", nil, 5, spec.Keys[0], http.StatusForbidden},
		{"the body changed", func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(`{"index":0,"ready":true,"final":true}`))
			r.ContentLength = -1
		}, 0, spec.Keys[0], http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, spec.Coordinator+fleet.ReportPath, bytes.NewReader(body))
			if tc.key != "" {
				if err := fleet.Sign(req, tc.key, tc.index, 1, body); err != nil {
					t.Fatal(err)
				}
			}
			if tc.edit != nil {
				tc.edit(req)
			}
			resp, err := f.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Errorf("%s: %s, want %d", tc.name, resp.Status, tc.want)
			}
		})
	}
	for _, path := range []string{fleet.AssignmentPath + "?index=0"} {
		if code, _ := f.send(http.MethodGet, path, nil, 0, "", 0); code != http.StatusUnauthorized {
			t.Errorf("GET %s unsigned: %d, want 401", path, code)
		}
	}
	// Nothing of it was taken: no agent is ready or lost.
	for _, a := range c.Info().PerAgent {
		if a.Lost != "" {
			t.Errorf("%s lost (%s) by a refused request", a.Name, a.Lost)
		}
	}
	// Agent 0's own key, its index: accepted.
	if code, _ := f.as(http.MethodGet, fleet.AssignmentPath+"?index=0", nil); code != http.StatusOK {
		t.Errorf("agent 0's own join: %d", code)
	}
	// Agent 0's key for agent 1's assignment: refused.
	if code, _ := f.send(http.MethodGet, fleet.AssignmentPath+"?index=1", nil, 1, spec.Keys[0], 99); code != http.StatusForbidden {
		t.Errorf("agent 1's assignment with agent 0's key: %d, want 403", code)
	}
}

// A report needs its agent's key: signed with another agent's key it is
// refused and nothing of it is taken; signed by the agent but naming
// another agent, it makes the signer lost.
func TestFleetReportNeedsItsAgentsKey(t *testing.T) {
	c, f := startFake(t, 2)
	spec := c.Spec()
	body, _ := json.Marshal(fleet.Report{Index: 1, Ready: true})
	if code, _ := f.send(http.MethodPost, fleet.ReportPath, body, 1, spec.Keys[0], 1); code != http.StatusForbidden {
		t.Errorf("agent 1's report with agent 0's key: %d, want 403", code)
	}
	if code, _ := f.send(http.MethodPost, fleet.ReportPath, body, 0, spec.Keys[0], 1); code != http.StatusOK {
		t.Errorf("agent 0 signing agent 1's report: %d", code)
	}
	info := c.Info()
	if info.PerAgent[1].Lost != "" || info.PerAgent[0].Lost == "" {
		t.Errorf("per agent %+v: want agent 0, which signed another's report, lost, agent 1 not", info.PerAgent)
	}
}

// A replayed request (a sequence number not above the last accepted) is
// answered 409 and not taken again; a second join of one index makes
// that agent lost.
func TestFleetReplayIsRefused(t *testing.T) {
	c, f := startFake(t, 1)
	spec := c.Spec()
	if code, _ := f.send(http.MethodGet, fleet.AssignmentPath+"?index=0", nil, 0, spec.Keys[0], 5); code != http.StatusOK {
		t.Fatalf("join: %d", code)
	}
	body, _ := json.Marshal(fleet.Report{Index: 0, Ready: true})
	if code, _ := f.send(http.MethodPost, fleet.ReportPath, body, 0, spec.Keys[0], 6); code != http.StatusOK {
		t.Fatalf("report: %d", code)
	}
	for _, seq := range []uint64{6, 3} {
		if code, _ := f.send(http.MethodPost, fleet.ReportPath, body, 0, spec.Keys[0], seq); code != http.StatusConflict {
			t.Errorf("report replayed with sequence number %d: %d, want 409", seq, code)
		}
	}
	if lost := c.Info().PerAgent[0].Lost; lost != "" {
		t.Fatalf("agent lost by a replay it did not make: %s", lost)
	}
	if code, _ := f.send(http.MethodGet, fleet.AssignmentPath+"?index=0", nil, 0, spec.Keys[0], 7); code != http.StatusConflict {
		t.Errorf("second join: %d, want 409", code)
	}
	if lost := c.Info().PerAgent[0].Lost; !strings.Contains(lost, "second time") {
		t.Errorf("after a second join the agent is lost because %q, want the second join", lost)
	}
}

// goodSecond is a second that adds up: n first attempts, all completed ok.
func goodSecond(i int, n int64) loadgen.Second {
	s := loadgen.Second{Index: i, Planned: n, Sent: n, Succeeded: n}
	s.AttemptsByNumber[1] = n
	s.FirstOutcomes[0] = n
	s.Latency = loadgen.Summary{Count: n, Mean: 0.01, Min: 0.005, P10: 0.006, P50: 0.01, P90: 0.02, P99: 0.03, Max: 0.04}
	return s
}

// A report that does not add up (a negative count, an absurd latency,
// more completed than sent, a second the run's clock has not reached, a
// gap, a moved start) makes its agent lost, and none of it goes into the
// timeline: the run stops with ErrAgentLost, never with the forged data.
func TestFleetAbsurdReportMakesAgentLost(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*fleet.Report)
	}{
		{"negative sent", func(r *fleet.Report) { r.Seconds[0].Sent = -7 }},
		{"1e308 latency", func(r *fleet.Report) { r.Seconds[0].Latency.Max = 1e308 }},
		{"latency past the run", func(r *fleet.Report) { r.Seconds[0].Latency.P99 = 3600 }},
		{"negative latency", func(r *fleet.Report) { r.Seconds[0].Latency.Min = -1 }},
		{"more completed than sent", func(r *fleet.Report) { r.Seconds[0].FirstOutcomes[0] = 50 }},
		{"more ended than started", func(r *fleet.Report) { r.Seconds[0].Succeeded = 40 }},
		{"attempts by number", func(r *fleet.Report) { r.Seconds[0].AttemptsByNumber[1] = 2 }},
		{"seconds from the future", func(r *fleet.Report) {
			for i := 1; i < 40; i++ {
				r.Seconds = append(r.Seconds, goodSecond(i, 3))
			}
		}},
		{"a gap", func(r *fleet.Report) { r.From, r.Seconds[0].Index = 3, 3 }},
		{"a negative from", func(r *fleet.Report) { r.From, r.Seconds[0].Index = -1, -1 }},
		{"negative cohorts from", func(r *fleet.Report) { r.CohortsFrom = -5 }},
		{"a cohort with more successes than requests", func(r *fleet.Report) {
			r.Cohorts = []loadgen.Cohort{{Index: 0, First: 3, Attempts: 3, Succeeded: 9}}
		}},
		{"a start outside the run", func(r *fleet.Report) { r.StartedUnixNS = 1 }},
		{"seconds without a start", func(r *fleet.Report) { r.StartedUnixNS = 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, f, done := running(t)
			rep := fleet.Report{Index: 0, Ready: true, StartedUnixNS: time.Now().UnixNano(), Seconds: []loadgen.Second{goodSecond(0, 3)}}
			tc.edit(&rep)
			code, ctl := f.report(rep)
			if code != http.StatusOK || !ctl.Stop || ctl.Have != 0 {
				t.Errorf("absurd report answered %d %+v, want 200, stop and nothing held", code, ctl)
			}
			err := testwait.Receive(t, done, 5*time.Second, "Run to return after an absurd report")
			if !errors.Is(err, fleet.ErrAgentLost) || !strings.Contains(err.Error(), "does not add up") {
				t.Errorf("Run = %v, want ErrAgentLost: the report does not add up", err)
			}
			if n := len(c.TimelineSince(0)); n != 0 {
				t.Errorf("the timeline holds %d seconds of the absurd report", n)
			}
		})
	}
	t.Run("a report that adds up", func(t *testing.T) {
		c, f, _ := running(t)
		code, ctl := f.report(fleet.Report{Index: 0, Ready: true, StartedUnixNS: time.Now().UnixNano(), Seconds: []loadgen.Second{goodSecond(0, 3)}})
		if code != http.StatusOK || ctl.Stop || ctl.Have != 1 || c.Info().PerAgent[0].Lost != "" {
			t.Errorf("a good report answered %d %+v (lost %q)", code, ctl, c.Info().PerAgent[0].Lost)
		}
	})
}

// A report signed by its agent but with nonsense indices (a negative
// from or cohorts_from) is no panic of the handler: it does not add up,
// so the agent is lost and none of it is taken (it used to be ignored
// while the run went on with the agent's later reports).
func TestFleetRefusesNegativeIndices(t *testing.T) {
	for _, rep := range []fleet.Report{
		{Index: 0, Ready: true, CohortsFrom: -5, Cohorts: []loadgen.Cohort{{Index: 0}}},
		{Index: 0, Ready: true, From: -3, Seconds: []loadgen.Second{{Index: 0}}},
	} {
		c, f, done := running(t)
		if code, ctl := f.report(rep); code != http.StatusOK || !ctl.Stop {
			t.Errorf("%+v: answered %d %+v, want 200 and stop", rep, code, ctl)
		}
		if err := testwait.Receive(t, done, 5*time.Second, "Run to return"); !errors.Is(err, fleet.ErrAgentLost) {
			t.Errorf("Run = %v, want ErrAgentLost", err)
		}
		if n := len(c.TimelineSince(0)); n != 0 {
			t.Errorf("%d seconds taken from a report with nonsense indices", n)
		}
	}
}
