package prom

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/trigger-test/trigger/vocab"
)

// Defaults of EmbeddedConfig.
const (
	// DefaultScrapeInterval is the time between two scrapes of a target:
	// the scenario's default scrape_interval.
	DefaultScrapeInterval = vocab.DefaultScrapeInterval
	// DefaultListen is the loopback address the HTTP API listens on.
	DefaultListen = "127.0.0.1:0"
	// DefaultSampleLimit is the most samples one scrape may carry; a
	// larger scrape fails (up = 0), as with Prometheus' sample_limit.
	DefaultSampleLimit = 100_000
	// DefaultLookback is how far back an instant selector looks for a
	// sample (PromQL's lookback delta).
	DefaultLookback = 5 * time.Minute
)

// Target is something the embedded server scrapes: the URL of a /metrics
// endpoint, or an in-process Gatherer (the driver's own collectors).
type Target struct {
	// Job is the value of the job label of every series scraped from it.
	Job string
	// URL is the http(s) URL of an exposition endpoint; exclusive with
	// Gatherer.
	URL string
	// Gatherer is gathered in-process at every scrape; exclusive with URL.
	Gatherer prometheus.Gatherer
	// Instance is the instance label; "" = host:port of URL, or "local"
	// for a Gatherer.
	Instance string
}

// EmbeddedConfig configures StartEmbedded.
type EmbeddedConfig struct {
	// Dir is the TSDB directory, created if missing: the run's output
	// folder + "/prometheus". The data stays there after Close.
	Dir string
	// Targets are scraped every ScrapeInterval, each by its own goroutine.
	Targets []Target
	// ScrapeInterval is the time between scrapes; 0 = DefaultScrapeInterval.
	ScrapeInterval time.Duration
	// ScrapeTimeout bounds one scrape; 0 = ScrapeInterval; at most
	// ScrapeInterval.
	ScrapeTimeout time.Duration
	// Listen is the address of the HTTP API; "" = DefaultListen. It must be
	// a loopback address.
	Listen string
	// SampleLimit is the most samples one scrape may carry; 0 =
	// DefaultSampleLimit.
	SampleLimit int
	// Lookback is PromQL's lookback delta; 0 = DefaultLookback.
	Lookback time.Duration
}

// Embedded is an in-process Prometheus: a TSDB under Dir, the PromQL
// engine, a scrape loop per target and Prometheus' HTTP query API on a
// loopback port, which answers only requests with its bearer token
// (Token) and a loopback Host header, and refuses a query over the cost
// bounds before evaluating it (limits.go). Stop it with Close or by cancelling the context given to
// StartEmbedded.
type Embedded struct {
	db      *tsdb.DB
	engine  *promql.Engine
	ln      net.Listener
	srv     *http.Server
	url     string
	token   string // the operator's
	own     string // the Querier's
	tempDir string // removed by Close: OpenRecorded's copy
	remote  *Remote
	scrapeC *http.Client

	cancel context.CancelFunc // stops the scrapers
	wg     sync.WaitGroup     // scrapers and the HTTP server

	mu        sync.Mutex
	stopWatch func() bool // unregisters the ctx watcher; under mu

	scrapers []*scraper

	closeOnce sync.Once
	closeErr  error
}

// StartEmbedded opens (or creates) the TSDB in cfg.Dir, starts the HTTP
// API on cfg.Listen and one scrape loop per target, the first scrape at
// once. Everything stops when ctx is cancelled or Close is called.
func StartEmbedded(ctx context.Context, cfg EmbeddedConfig) (*Embedded, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("prom: embedded dir: %w", err)
	}
	return start(ctx, cfg)
}

// CheckListen fails unless addr is a loopback host:port, the only kind
// the embedded server listens on.
func CheckListen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("prom: embedded listen %q: %w", addr, err)
	}
	if !IsLoopbackHost(host) {
		return fmt.Errorf("prom: embedded listen %q: not a loopback address", addr)
	}
	return nil
}

// withDefaults checks c and fills in the defaults.
func (c EmbeddedConfig) withDefaults() (EmbeddedConfig, error) {
	if c.Dir == "" {
		return c, errors.New("prom: embedded: Dir is required (the run's output folder + /prometheus)")
	}
	if c.ScrapeInterval <= 0 {
		c.ScrapeInterval = DefaultScrapeInterval
	}
	if c.ScrapeTimeout <= 0 || c.ScrapeTimeout > c.ScrapeInterval {
		c.ScrapeTimeout = c.ScrapeInterval
	}
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.SampleLimit <= 0 {
		c.SampleLimit = DefaultSampleLimit
	}
	if c.Lookback <= 0 {
		c.Lookback = DefaultLookback
	}
	if err := CheckListen(c.Listen); err != nil {
		return c, err
	}
	c.Targets = slices.Clone(c.Targets) // the instance defaults are written into the copy
	seen := make(map[[2]string]bool, len(c.Targets))
	for i, t := range c.Targets {
		if t.Job == "" {
			return c, fmt.Errorf("prom: embedded target %d: Job is required", i)
		}
		if (t.URL == "") == (t.Gatherer == nil) {
			return c, fmt.Errorf("prom: embedded target %q: set exactly one of URL and Gatherer", t.Job)
		}
		inst, err := t.instance()
		if err != nil {
			return c, err
		}
		c.Targets[i].Instance = inst
		key := [2]string{t.Job, inst}
		if seen[key] {
			return c, fmt.Errorf("prom: embedded target job=%q instance=%q given twice", t.Job, inst)
		}
		seen[key] = true
	}
	return c, nil
}

// start opens the TSDB and starts the server and the scrapers.
func start(ctx context.Context, cfg EmbeddedConfig) (*Embedded, error) {
	logger := slog.New(slog.DiscardHandler)
	opts := tsdb.DefaultOptions()
	opts.RetentionDuration = 0 // keep a run's data for later reports
	db, err := tsdb.Open(cfg.Dir, logger, nil, opts, nil)
	if err != nil {
		return nil, fmt.Errorf("prom: open tsdb in %s: %w", cfg.Dir, err)
	}
	engine := newEngine(logger, cfg.Lookback, cfg.ScrapeInterval)
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("prom: embedded listen: %w", err), db.Close())
	}
	e := &Embedded{
		db:      db,
		engine:  engine,
		ln:      ln,
		url:     "http://" + ln.Addr().String(),
		token:   newToken(),
		own:     newToken(),
		scrapeC: &http.Client{Transport: newTransport(nil)},
	}
	e.remote, err = NewRemote(RemoteConfig{Address: e.url, BearerToken: e.own})
	if err != nil {
		return nil, errors.Join(err, ln.Close(), db.Close())
	}
	e.srv = &http.Server{
		Handler:           guard(e.own, e.token, newAPI(db, engine, cfg.Lookback, cfg.ScrapeInterval).handler()),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	e.wg.Go(func() {
		_ = e.srv.Serve(ln) // returns http.ErrServerClosed on Close
	})
	sctx, cancel := context.WithCancel(ctx)
	e.cancel = cancel
	for _, t := range cfg.Targets {
		s := newScraper(t, db, e.scrapeC, cfg.ScrapeInterval, cfg.ScrapeTimeout, cfg.SampleLimit)
		e.scrapers = append(e.scrapers, s)
		e.wg.Go(func() { s.run(sctx) })
	}
	// If ctx is already done the watcher may run Close before stopWatch is
	// set; Close then finds it nil, which is harmless.
	e.mu.Lock()
	e.stopWatch = context.AfterFunc(ctx, func() { _ = e.Close() })
	e.mu.Unlock()
	return e, nil
}

// URL returns the base URL of the HTTP API, "http://127.0.0.1:PORT".
func (e *Embedded) URL() string { return e.url }

// Token returns the bearer token a client other than Querier (Grafana,
// promtool, the operator) sends to the HTTP API ("Authorization: Bearer
// TOKEN"): 64 hex digits, new for each server. Querier sends a token of
// its own, not shown, whose queries have slots of their own: nobody
// else's queries can make the run's wait.
func (e *Embedded) Token() string { return e.token }

// Dir returns the TSDB directory.
func (e *Embedded) Dir() string { return e.db.Dir() }

// Targets returns the state of each target after its last scrape, in the
// order of EmbeddedConfig.Targets.
func (e *Embedded) Targets() []TargetHealth {
	out := make([]TargetHealth, len(e.scrapers))
	for i, s := range e.scrapers {
		out[i] = s.Health()
	}
	return out
}

// Querier returns a *Remote pointed at URL(): the same client code as for
// a real server. It stops answering after Close.
func (e *Embedded) Querier() Querier { return e.remote }

// Remote returns the Querier as a *Remote, for Ping and Close.
func (e *Embedded) Remote() *Remote { return e.remote }

// Close stops the scrapers, then the HTTP API, then closes the TSDB; the
// data stays on disk. It is idempotent and safe to call concurrently.
func (e *Embedded) Close() error {
	e.closeOnce.Do(func() {
		e.mu.Lock()
		stop := e.stopWatch
		e.mu.Unlock()
		if stop != nil {
			stop()
		}
		e.cancel()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		if err := e.srv.Shutdown(sctx); err != nil {
			errs = append(errs, fmt.Errorf("prom: embedded http shutdown: %w", err), e.srv.Close())
		}
		e.wg.Wait()
		e.remote.Close()
		e.scrapeC.CloseIdleConnections()
		if err := e.db.Close(); err != nil {
			errs = append(errs, fmt.Errorf("prom: close tsdb: %w", err))
		}
		if e.tempDir != "" {
			if err := os.RemoveAll(e.tempDir); err != nil {
				errs = append(errs, fmt.Errorf("prom: remove the copy: %w", err))
			}
		}
		e.closeErr = errors.Join(errs...)
	})
	return e.closeErr
}
