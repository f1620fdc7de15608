package staging

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Defaults of PrometheusConfig.
const (
	// DefaultPromScrapeInterval is the time between two scrapes of a job.
	DefaultPromScrapeInterval = time.Second
	// DefaultPrometheusStartTimeout bounds the wait for /-/ready.
	DefaultPrometheusStartTimeout = 60 * time.Second
	// maxScrapeTimeout caps scrape_timeout, seconds as Prometheus' default.
	maxScrapeTimeout = 10 * time.Second
	// prometheusGrace is how long Prometheus may take to shut down after
	// SIGTERM (it closes its TSDB) before it is killed.
	prometheusGrace = 15 * time.Second
)

// PrometheusConfig configures StartPrometheus. Zero fields take the
// defaults above.
type PrometheusConfig struct {
	// Binary is the prometheus program; "" = found by
	// LookBinary("prometheus", "").
	Binary string
	// ScrapeInterval is the global scrape_interval, whole milliseconds;
	// 0 = DefaultPromScrapeInterval. scrape_timeout is
	// min(ScrapeInterval, 10 s).
	ScrapeInterval time.Duration
	// EvaluationInterval is the global evaluation_interval, whole
	// milliseconds; 0 = ScrapeInterval.
	EvaluationInterval time.Duration
	// Jobs maps a job name to the host:port scraped at /metrics over HTTP;
	// each must be a loopback address.
	Jobs map[string]string
	// Dir holds prometheus.yml, prometheus.log and the TSDB (data/); "" = a
	// new temporary directory, removed by Stop. A given one is left in place.
	Dir string
	// StartTimeout bounds the wait for /-/ready; 0 =
	// DefaultPrometheusStartTimeout.
	StartTimeout time.Duration
}

func (c PrometheusConfig) withDefaults() (PrometheusConfig, error) {
	if c.ScrapeInterval == 0 {
		c.ScrapeInterval = DefaultPromScrapeInterval
	}
	if c.EvaluationInterval == 0 {
		c.EvaluationInterval = c.ScrapeInterval
	}
	for _, d := range []time.Duration{c.ScrapeInterval, c.EvaluationInterval} {
		if d < time.Millisecond || d%time.Millisecond != 0 {
			return c, fmt.Errorf("staging: prometheus interval %s: want whole milliseconds, at least 1ms", d)
		}
	}
	for job, addr := range c.Jobs {
		if job == "" || strings.ContainsAny(job, "\"\\\n") {
			return c, fmt.Errorf("staging: prometheus job name %q: want a plain non-empty name", job)
		}
		if err := checkLoopback("prometheus job "+job, addr); err != nil {
			return c, err
		}
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultPrometheusStartTimeout
	}
	return c, nil
}

// render returns prometheus.yml for c (defaults applied), jobs in name order.
func (c PrometheusConfig) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by internal/staging.\nglobal:\n  scrape_interval: %dms\n  scrape_timeout: %dms\n  evaluation_interval: %dms\nscrape_configs:\n",
		c.ScrapeInterval.Milliseconds(), min(c.ScrapeInterval, maxScrapeTimeout).Milliseconds(), c.EvaluationInterval.Milliseconds())
	jobs := make([]string, 0, len(c.Jobs))
	for job := range c.Jobs {
		jobs = append(jobs, job)
	}
	slices.Sort(jobs)
	for _, job := range jobs {
		fmt.Fprintf(&b, "  - job_name: %q\n    static_configs:\n      - targets: [%q]\n", job, c.Jobs[job])
	}
	return b.String()
}

// Prometheus is a running Prometheus server (a child process) on a free
// loopback port. Stop it with Stop; the end of the context given to
// StartPrometheus also ends it, and Stop must still be called to wait for
// it and remove its directory.
type Prometheus struct {
	// URL is the server's base URL, "http://127.0.0.1:port".
	URL string
	// Addr is its address, "127.0.0.1:port".
	Addr string
	// Config is the configuration in force, defaults applied.
	Config PrometheusConfig

	dir    string
	ownDir bool
	p      *proc
	client *http.Client
	close  func() // closes client's idle connections
}

// StartPrometheus writes prometheus.yml for cfg, runs Prometheus with
// --log.level=warn and its TSDB in Dir/data, and returns once /-/ready
// answers 200. The jobs need not be up yet.
func StartPrometheus(ctx context.Context, cfg PrometheusConfig) (*Prometheus, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	bin, err := findBinary(cfg.Binary, "prometheus")
	if err != nil {
		return nil, err
	}
	cfg.Binary = bin
	p := &Prometheus{Config: cfg, dir: cfg.Dir}
	if p.dir == "" {
		if p.dir, err = os.MkdirTemp("", "staging-prometheus-"); err != nil {
			return nil, fmt.Errorf("staging: prometheus dir: %w", err)
		}
		p.ownDir = true
	}
	if err := os.WriteFile(filepath.Join(p.dir, "prometheus.yml"), []byte(cfg.render()), 0o644); err != nil {
		p.removeDir()
		return nil, fmt.Errorf("staging: prometheus config: %w", err)
	}
	p.client, p.close = newClient()
	for attempt := 1; ; attempt++ {
		err = p.start(ctx)
		if err == nil {
			return p, nil
		}
		conflict := p.p != nil && p.p.bindConflict()
		if p.p != nil {
			_ = p.p.stop()
		}
		if !conflict || attempt == bindAttempts || ctx.Err() != nil {
			p.close()
			p.removeDir()
			return nil, err
		}
		_ = os.Remove(filepath.Join(p.dir, "prometheus.log"))
	}
}

func (p *Prometheus) start(ctx context.Context) error {
	p.p = nil
	addr, err := LoopbackAddr()
	if err != nil {
		return err
	}
	p.Addr, p.URL = addr, "http://"+addr
	args := []string{
		"--config.file=" + filepath.Join(p.dir, "prometheus.yml"),
		"--storage.tsdb.path=" + filepath.Join(p.dir, "data"),
		"--web.listen-address=" + addr,
		"--log.level=warn",
	}
	if p.p, err = startProc(ctx, "prometheus", p.Config.Binary, args, p.dir, prometheusGrace); err != nil {
		return err
	}
	return p.p.waitReady(ctx, p.Config.StartTimeout, func(ctx context.Context) error {
		return getOK(ctx, p.client, p.URL+"/-/ready")
	})
}

// Dir returns the directory of prometheus.yml, prometheus.log and data/.
func (p *Prometheus) Dir() string { return p.dir }

// Log returns the end of Prometheus' output (warnings and errors), at
// most 4 KiB. Valid until Stop removes a temporary directory.
func (p *Prometheus) Log() string { return p.p.tail() }

// Stop ends Prometheus (SIGTERM, SIGKILL after 15 s), waits for it, and
// removes its directory if StartPrometheus created it. It returns an error
// if Prometheus had ended on its own. Idempotent.
func (p *Prometheus) Stop() error {
	err := p.p.stop()
	p.close()
	p.removeDir()
	return err
}

func (p *Prometheus) removeDir() {
	if p.ownDir {
		_ = os.RemoveAll(p.dir)
	}
}
