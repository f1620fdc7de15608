package loadgen

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// seen records what a test server received.
type seen struct {
	mu        sync.Mutex
	attempts  map[string][]int // X-Attempt values per X-Request-Id
	deadlines map[string][]int // X-Deadline-Ms values per X-Request-Id
	arrivals  map[string][]time.Time
	tracers   int
	conns     atomic.Int64
	cur, peak atomic.Int64 // concurrent requests in the handler
}

func newSeen() *seen {
	return &seen{attempts: map[string][]int{}, deadlines: map[string][]int{}, arrivals: map[string][]time.Time{}}
}

// note records one request and returns its attempt number.
func (s *seen) note(r *http.Request) int {
	a, _ := strconv.Atoi(r.Header.Get("X-Attempt"))
	ms, _ := strconv.Atoi(r.Header.Get("X-Deadline-Ms"))
	id := r.Header.Get("X-Request-Id")
	s.mu.Lock()
	defer s.mu.Unlock()
	if a == 0 {
		s.tracers++
		return 0
	}
	s.attempts[id] = append(s.attempts[id], a)
	s.deadlines[id] = append(s.deadlines[id], ms)
	s.arrivals[id] = append(s.arrivals[id], time.Now())
	return a
}

func (s *seen) enter() func() {
	n := s.cur.Add(1)
	for {
		p := s.peak.Load()
		if n <= p || s.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return func() { s.cur.Add(-1) }
}

// server starts a loopback server whose handler is h, counting connections.
func server(t *testing.T, s *seen, h func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer s.enter()()
		h(w, r)
	}))
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// countingRT counts concurrent round trips.
type countingRT struct {
	rt        http.RoundTripper
	cur, peak atomic.Int64
}

func (c *countingRT) RoundTrip(r *http.Request) (*http.Response, error) {
	n := c.cur.Add(1)
	defer c.cur.Add(-1)
	for {
		p := c.peak.Load()
		if n <= p || c.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return c.rt.RoundTrip(r)
}

// useNetHTTP makes the end-to-end tests use net/http's Transport
// (NewTransport) instead of the default LeanTransport.
var useNetHTTP bool

// runDriver runs a driver to its end, bounded by a 30 s safety timeout.
func runDriver(t *testing.T, cfg Config) *Driver {
	t.Helper()
	if useNetHTTP && cfg.Transport == nil {
		nt := NewTransport(DefaultTransportOptions())
		t.Cleanup(nt.CloseIdleConnections)
		cfg.Transport = nt
	}
	d, err := NewDriver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Run(ctx); err != nil {
		t.Fatalf("run: %v", err)
	}
	return d
}

// checkAccounting asserts the conservation laws of a finished run: every
// planned first attempt is sent, dropped or refused; every attempt sent has
// exactly one outcome; every logical request ended once; the timeline sums
// to the totals.
func checkAccounting(t *testing.T, d *Driver) Totals {
	t.Helper()
	tot := d.Totals()
	if tot.Planned != tot.Sent+tot.Dropped+tot.Refused {
		t.Errorf("planned %d ≠ sent %d + dropped %d + refused %d", tot.Planned, tot.Sent, tot.Dropped, tot.Refused)
	}
	if got := tot.Completed(); got != tot.Attempts() {
		t.Errorf("%d outcomes for %d attempts sent", got, tot.Attempts())
	}
	var byNum int64
	for _, n := range tot.AttemptsByNumber {
		byNum += n
	}
	if byNum != tot.Attempts() {
		t.Errorf("attempts by number sum to %d, want %d", byNum, tot.Attempts())
	}
	if tot.Succeeded+tot.Failed != tot.Sent || tot.Pending != 0 || tot.InFlight != 0 {
		t.Errorf("succeeded %d + failed %d ≠ sent %d (pending %d, in flight %d)", tot.Succeeded, tot.Failed, tot.Sent, tot.Pending, tot.InFlight)
	}
	var sum Second
	for i, s := range d.Timeline() {
		if s.Index != i {
			t.Fatalf("timeline second %d has index %d", i, s.Index)
		}
		sum.Planned += s.Planned
		sum.Sent += s.Sent
		sum.Retries += s.Retries
		sum.Succeeded += s.Succeeded
		sum.Failed += s.Failed
		sum.TracerSent += s.TracerSent
		sum.TracerRefused += s.TracerRefused
		for o := range vocab.NumOutcomes {
			sum.FirstOutcomes[o] += s.FirstOutcomes[o]
			sum.RetryOutcomes[o] += s.RetryOutcomes[o]
		}
	}
	if sum.Planned != tot.Planned || sum.Sent != tot.Sent || sum.Retries != tot.Retries ||
		sum.Succeeded != tot.Succeeded || sum.Failed != tot.Failed || sum.FirstOutcomes != tot.FirstOutcomes ||
		sum.RetryOutcomes != tot.RetryOutcomes || sum.TracerSent != tot.TracerSent || sum.TracerRefused != tot.TracerRefused {
		t.Errorf("timeline sums %+v differ from totals %+v", sum, tot.Second)
	}
	checkCohorts(t, d, tot)
	return tot
}

// checkCohorts asserts the cohorts of a finished run: one per second of the
// timeline, each with the first attempts its second sent and none open, and
// together they sum to the totals.
func checkCohorts(t *testing.T, d *Driver, tot Totals) {
	t.Helper()
	tl, cs := d.Timeline(), d.Cohorts(0)
	if len(cs) != len(tl) {
		t.Errorf("%d cohorts for %d seconds", len(cs), len(tl))
	}
	var sum Cohort
	for i, c := range cs {
		if c.Index != i || c.Open != 0 || c.Succeeded > c.First || c.Attempts < c.First {
			t.Errorf("cohort %d after the run: %+v", i, c)
		}
		if i < len(tl) && c.First != tl[i].Sent {
			t.Errorf("cohort %d: %d first attempts, its second sent %d", i, c.First, tl[i].Sent)
		}
		sum.First += c.First
		sum.Attempts += c.Attempts
		sum.Succeeded += c.Succeeded
	}
	if sum.First != tot.Sent || sum.Attempts != tot.Attempts() || sum.Succeeded != tot.Succeeded {
		t.Errorf("cohorts sum to %+v; totals: sent %d, attempts %d, succeeded %d", sum, tot.Sent, tot.Attempts(), tot.Succeeded)
	}
}

// scrape returns the driver's metrics exposition.
func scrape(t *testing.T, d *Driver) string {
	t.Helper()
	rec := httptest.NewRecorder()
	d.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}

func TestDriverNeverAnswers(t *testing.T) {
	// Every attempt times out: R = 2 gives exactly 3 attempts per logical
	// request, all timeouts, each seen by the server with X-Attempt 1, 2, 3,
	// one request id and the full per-attempt deadline.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		<-r.Context().Done() // hold the request until the client gives up
	})
	d := runDriver(t, Config{
		Request:  Request{URL: srv.URL + "/work", Header: http.Header{"X-Test": {"trigger"}}},
		Stages:   []Stage{Constant(time.Second, 40)},
		Arrivals: vocab.Uniform,
		Timeout:  200 * time.Millisecond,
		Retry:    retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)},
	})
	tot := checkAccounting(t, d)
	if tot.Sent != 40 || tot.Retries != 80 || tot.FirstOutcomes[vocab.OutcomeTimeout] != 40 ||
		tot.RetryOutcomes[vocab.OutcomeTimeout] != 80 || tot.Failed != 40 || tot.Succeeded != 0 {
		t.Errorf("totals %+v", tot.Second)
	}
	if tot.AttemptsByNumber[1] != 40 || tot.AttemptsByNumber[2] != 40 || tot.AttemptsByNumber[3] != 40 {
		t.Errorf("attempts by number %v", tot.AttemptsByNumber)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.attempts) != 40 {
		t.Errorf("server saw %d request ids, want 40", len(s.attempts))
	}
	for id, as := range s.attempts {
		if fmt.Sprint(as) != "[1 2 3]" {
			t.Errorf("request %s: attempts %v, want [1 2 3]", id, as)
		}
		for _, ms := range s.deadlines[id] {
			if ms != 200 {
				t.Errorf("request %s: X-Deadline-Ms %d, want 200", id, ms)
			}
		}
	}
	m := scrape(t, d)
	for _, line := range []string{
		`trigger_attempts_total{kind="first",outcome="timeout"} 40`,
		`trigger_attempts_total{kind="retry",outcome="timeout"} 80`,
		`trigger_attempts_sent_total{kind="retry"} 80`,
		`trigger_requests_total{result="failed"} 40`,
		`trigger_first_attempts_planned_total 40`,
		`trigger_in_flight 0`,
		`trigger_pending_requests 0`,
	} {
		if !strings.Contains(m, line+"\n") {
			t.Errorf("metrics lack %q", line)
		}
	}
}

func TestDriverRetryAfter(t *testing.T) {
	// The first attempt gets 503 with Retry-After: 1; the retry succeeds. The
	// retry waits at least the Retry-After, not the 10 ms backoff.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		if s.note(r) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	})
	d := runDriver(t, Config{
		Request:  Request{URL: srv.URL},
		Stages:   []Stage{Constant(500*time.Millisecond, 40)},
		Arrivals: vocab.Poisson,
		Seed:     3,
		Timeout:  time.Second,
		Retry: retry.Policy{MaxRetries: 3, On: retry.NewOutcomeSet(vocab.Outcome503), RetryAfter: true,
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 10 * time.Millisecond}},
	})
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.FirstOutcomes[vocab.Outcome503] != tot.Sent || tot.RetryOutcomes[vocab.OutcomeOK] != tot.Sent ||
		tot.Succeeded != tot.Sent || tot.Failed != 0 {
		t.Errorf("totals %+v", tot.Second)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, at := range s.arrivals {
		if len(at) != 2 {
			t.Errorf("request %s: %d attempts, want 2", id, len(at))
			continue
		}
		if gap := at[1].Sub(at[0]); gap < time.Second {
			t.Errorf("request %s: retry after %v, before Retry-After (1 s)", id, gap)
		}
	}
}

func TestDriverAlways503(t *testing.T) {
	// A 503 that never ends: R = 1, so two attempts each, then failed.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	d := runDriver(t, Config{
		Request: Request{URL: srv.URL, Method: "POST", Body: []byte(`{"x":1}`)},
		Stages:  []Stage{Constant(time.Second, 30)}, Arrivals: vocab.Uniform,
		Timeout: time.Second,
		Retry:   retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome503, vocab.Outcome5xx)},
	})
	tot := checkAccounting(t, d)
	if tot.Sent != 30 || tot.Retries != 30 || tot.FirstOutcomes[vocab.Outcome503] != 30 || tot.RetryOutcomes[vocab.Outcome503] != 30 || tot.Failed != 30 {
		t.Errorf("totals %+v", tot.Second)
	}
}

func TestDriverFast(t *testing.T) {
	// A fast server: every first attempt succeeds, nothing is retried, and
	// keep-alive connections are reused (bodies drained).
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		io.WriteString(w, strings.Repeat("x", 2048))
	})
	d := runDriver(t, Config{
		Request: Request{URL: srv.URL},
		Stages:  []Stage{Constant(time.Second, 100), Ramp(time.Second, 100, 300)},
		Seed:    9,
		Timeout: time.Second,
		Retry:   retry.Policy{MaxRetries: 2, On: retry.NewOutcomeSet(vocab.OutcomeTimeout, vocab.Outcome5xx)},
		Tracers: &vocab.Tracers{Rate: 10, Timeout: time.Second},
	})
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.Succeeded != tot.Sent || tot.Retries != 0 || tot.FirstOutcomes[vocab.OutcomeOK] != tot.Sent {
		t.Errorf("totals %+v", tot.Second)
	}
	if tot.Dropped != 0 || tot.Refused != 0 {
		t.Logf("dropped %d, refused %d (a loaded machine)", tot.Dropped, tot.Refused)
	}
	if c := s.conns.Load(); c*2 > tot.Sent {
		t.Errorf("%d connections for %d attempts: keep-alive not reused", c, tot.Sent)
	}
	if tot.TracerSent == 0 || tot.TracerOutcomes[vocab.OutcomeOK]+tot.TracerOutcomes[vocab.OutcomeOther] != tot.TracerSent || tot.TracerWait.Count == 0 {
		t.Errorf("tracers: sent %d, outcomes %v, wait %+v", tot.TracerSent, tot.TracerOutcomes, tot.TracerWait)
	}
	s.mu.Lock()
	if int64(s.tracers) != tot.TracerSent {
		t.Errorf("server saw %d tracers, driver sent %d", s.tracers, tot.TracerSent)
	}
	s.mu.Unlock()
	if tot.Lag.Count != tot.Sent || tot.Latency.Count != tot.Sent {
		t.Errorf("lag %+v latency %+v for %d sent", tot.Lag, tot.Latency, tot.Sent)
	}
}

func TestDriverConnectError(t *testing.T) {
	// Nothing listens: every attempt is a connect error, retried once.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d := runDriver(t, Config{
		Request: Request{URL: "http://" + addr + "/"},
		Stages:  []Stage{Constant(time.Second, 20)}, Arrivals: vocab.Uniform,
		Timeout: time.Second,
		Retry:   retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.OutcomeConnect)},
	})
	tot := checkAccounting(t, d)
	if tot.Sent != 20 || tot.FirstOutcomes[vocab.OutcomeConnect] != 20 || tot.RetryOutcomes[vocab.OutcomeConnect] != 20 {
		t.Errorf("totals %+v", tot.Second)
	}
}

func TestDriverMaxInFlight(t *testing.T) {
	// At most 10 attempts in flight: the transport never carries more than
	// 10 round trips at once, and what the driver could not send is counted
	// as refused. (The server may briefly see more: it notices a client's
	// give-up only after the client has moved on.)
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		<-r.Context().Done()
	})
	ct := &countingRT{rt: NewLeanTransport(DefaultTransportOptions())}
	if useNetHTTP {
		ct.rt = NewTransport(DefaultTransportOptions())
	}
	d := runDriver(t, Config{
		Transport: ct,
		Request:   Request{URL: srv.URL},
		Stages:    []Stage{Constant(time.Second, 100)}, Arrivals: vocab.Uniform,
		Timeout:     500 * time.Millisecond,
		MaxInFlight: 10,
		Retry:       retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.OutcomeTimeout)},
	})
	tot := checkAccounting(t, d)
	if p := ct.peak.Load(); p > 10 || p < 1 {
		t.Errorf("%d concurrent round trips, bound 10", p)
	}
	if tot.Refused == 0 || tot.Sent+tot.Refused+tot.Dropped != 100 {
		t.Errorf("totals %+v", tot.Second)
	}
	// Retries that found no slot fail their logical request and are counted.
	if tot.Failed != tot.Sent || tot.Retries+tot.RetryRefused != tot.Sent {
		t.Errorf("retries %d + refused %d ≠ first attempts %d", tot.Retries, tot.RetryRefused, tot.Sent)
	}
}

func TestDriverDeadline(t *testing.T) {
	// An overall deadline of 500 ms with 200 ms attempts: no attempt's
	// X-Deadline-Ms exceeds the time left, and their sum fits the deadline.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		<-r.Context().Done()
	})
	d := runDriver(t, Config{
		Request: Request{URL: srv.URL},
		Stages:  []Stage{Constant(500*time.Millisecond, 20)}, Arrivals: vocab.Uniform,
		Timeout: 200 * time.Millisecond,
		Retry:   retry.Policy{MaxRetries: 10, On: retry.NewOutcomeSet(vocab.OutcomeTimeout), Deadline: 500 * time.Millisecond},
	})
	tot := checkAccounting(t, d)
	if tot.Failed != tot.Sent {
		t.Errorf("totals %+v", tot.Second)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, ms := range s.deadlines {
		sum := 0
		for _, m := range ms {
			sum += m
		}
		if len(ms) < 2 || len(ms) > 3 || sum > 500 || ms[0] != 200 {
			t.Errorf("request %s: X-Deadline-Ms %v (sum %d), want 2–3 attempts within 500 ms", id, ms, sum)
		}
	}
}

func TestDriverCancel(t *testing.T) {
	// Cancelling the run cancels attempts in flight and queued retries;
	// every attempt still has one outcome and every request one result.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) {
		s.note(r)
		<-r.Context().Done()
	})
	var rt http.RoundTripper
	if useNetHTTP {
		rt = NewTransport(DefaultTransportOptions())
	}
	d, err := NewDriver(Config{
		Transport: rt,
		Request:   Request{URL: srv.URL},
		Stages:    []Stage{Constant(20*time.Second, 50)},
		Timeout:   150 * time.Millisecond,
		Retry: retry.Policy{MaxRetries: 5, On: retry.NewOutcomeSet(vocab.OutcomeTimeout),
			Backoff: retry.Backoff{Kind: vocab.BackoffConstant, Base: 5 * time.Second}},
		Tracers: &vocab.Tracers{Rate: 5},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	testwait.For(t, 10*time.Second, 10*time.Millisecond, "a retry queued or 20 first attempts timed out", func() bool {
		tot := d.Totals()
		return tot.Retries > 0 || tot.FirstOutcomes[vocab.OutcomeTimeout] >= 20
	})
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("Run returned %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	tot := checkAccounting(t, d)
	if tot.Sent == 0 || tot.FirstOutcomes[vocab.OutcomeOther] == 0 || tot.Failed != tot.Sent || d.rq.len() != 0 {
		t.Errorf("totals %+v", tot.Second)
	}
}

func TestDriverReplan(t *testing.T) {
	// Replanning to zero stops new first attempts; the run then ends with
	// its last logical request.
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) { s.note(r) })
	d, err := NewDriver(Config{
		Request: Request{URL: srv.URL},
		Stages:  []Stage{Constant(60*time.Second, 50)}, Arrivals: vocab.Uniform,
		Timeout: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	testwait.For(t, 10*time.Second, 10*time.Millisecond, "10 first attempts sent", func() bool { return d.Totals().Sent >= 10 })
	d.Replan([]Stage{Constant(100*time.Millisecond, 0)})
	if err := testwait.Receive(t, done, 20*time.Second, "Run to return after the replan to zero"); err != nil {
		t.Fatalf("run: %v", err)
	}
	tot := checkAccounting(t, d)
	if tot.Planned >= 3000 || tot.Succeeded != tot.Sent {
		t.Errorf("after replan: %+v", tot.Second)
	}
}

func TestNewDriverErrors(t *testing.T) {
	ok := Config{Request: Request{URL: "http://127.0.0.1:1/"}, Timeout: time.Second}
	tests := []struct {
		name string
		edit func(c *Config)
	}{
		{"no url", func(c *Config) { c.Request.URL = "" }},                                   // nothing to hit
		{"bad scheme", func(c *Config) { c.Request.URL = "ftp://x/" }},                       // not http
		{"no timeout", func(c *Config) { c.Timeout = 0 }},                                    // τ_out required
		{"negative rate", func(c *Config) { c.Stages = []Stage{Constant(time.Second, -1)} }}, // rates ≥ 0
		{"negative retries", func(c *Config) { c.Retry.MaxRetries = -1 }},                    // R ≥ 0
		{"bad budget", func(c *Config) { b := -0.1; c.Retry.Budget = &b }},                   // β ≥ 0
		{"negative tracer", func(c *Config) { c.Tracers = &vocab.Tracers{Rate: -1} }},        // rates ≥ 0
		{"negative in flight", func(c *Config) { c.MaxInFlight = -1 }},                       // bound ≥ 0
		{"tracers above the ceiling", func(c *Config) { c.Tracers = &vocab.Tracers{Rate: MaxTracerRate + 1} }},
		{"rate above MaxRate", func(c *Config) { c.Stages = []Stage{Constant(time.Second, 2*MaxRate)} }},
		{"ok status not a status", func(c *Config) { c.OKStatus = []int{200, 2000} }},
	}
	if _, err := NewDriver(ok); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	atCeiling := ok
	atCeiling.Tracers = &vocab.Tracers{Rate: MaxTracerRate}
	if _, err := NewDriver(atCeiling); err != nil {
		t.Fatalf("tracers at MaxTracerRate refused: %v", err)
	}
	for _, tc := range tests {
		c := ok
		tc.edit(&c)
		if _, err := NewDriver(c); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
	}
}

func TestDriverRegisterer(t *testing.T) {
	// The collectors are also registered with a caller's registry; a second
	// driver on the same registry is refused (duplicate collectors).
	s := newSeen()
	srv := server(t, s, func(w http.ResponseWriter, r *http.Request) { s.note(r) })
	reg := prometheus.NewRegistry()
	cfg := Config{Request: Request{URL: srv.URL}, Stages: []Stage{Constant(200*time.Millisecond, 50)},
		Arrivals: vocab.Uniform, Timeout: time.Second, Registerer: reg}
	d := runDriver(t, cfg)
	tot := checkAccounting(t, d)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sent float64
	for _, mf := range mfs {
		if mf.GetName() == "trigger_attempts_sent_total" {
			for _, m := range mf.GetMetric() {
				sent += m.GetCounter().GetValue()
			}
		}
	}
	if sent != float64(tot.Sent) || sent == 0 {
		t.Errorf("registry has %v attempts sent, driver %d", sent, tot.Sent)
	}
	if _, err := NewDriver(cfg); err == nil {
		t.Error("second driver on the same registerer accepted")
	}
	if live := d.Live(); live.Pending != 0 || live.InFlight != 0 {
		t.Errorf("live after the run: %+v", live)
	}
	// The timeline is frozen once Run has returned.
	n := len(d.Timeline())
	time.Sleep(1100 * time.Millisecond)
	if m := len(d.Timeline()); m != n {
		t.Errorf("timeline grew from %d to %d seconds after the run", n, m)
	}
}

// okRT answers every request at once with an empty 200.
type okRT struct{}

func (okRT) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody}, nil
}

// BenchmarkAttempt measures the driver's own cost of one attempt (request
// building, headers, context, accounting, metrics) without any network.
func BenchmarkAttempt(b *testing.B) {
	d, err := NewDriver(Config{Request: Request{URL: "http://127.0.0.1:9/x", Header: http.Header{"X-Test": {"1"}}},
		Timeout: time.Second, Transport: okRT{}})
	if err != nil {
		b.Fatal(err)
	}
	d.start = time.Now()
	d.started.Store(true)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		d.acquire()
		d.pending.Add(1)
		d.attempts.Add(1)
		d.run(ctx, logical{id: 1, attempt: 1, planned: d.now()})
	}
}
