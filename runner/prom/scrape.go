package prom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/model/timestamp"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/storage"
)

// scrapeAccept is the Accept header of a scrape: OpenMetrics first, then
// the Prometheus text format, as Prometheus asks for the text formats.
const scrapeAccept = "application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2"

// maxScrapeBytes bounds the body of one scrape.
const maxScrapeBytes = 64 << 20

// Names of the series the scraper writes about each target, as Prometheus
// names them.
const (
	metricUp             = "up"
	metricScrapeDuration = "scrape_duration_seconds"
	metricScrapeSamples  = "scrape_samples_scraped"
)

// staleNaN marks a series as gone, as Prometheus does when a series
// vanishes from a scrape or the scrape fails; PromQL then stops looking
// back past it.
var staleNaN = math.Float64frombits(value.StaleNaN)

// TargetHealth is the state of one scrape target after its last scrape.
type TargetHealth struct {
	// Job and Instance are the target's labels.
	Job, Instance string
	// Up is true when the last scrape succeeded.
	Up bool
	// LastError is the error of the last scrape, "" when it succeeded.
	LastError string
	// LastScrape is the start of the last scrape; zero before the first.
	LastScrape time.Time
	// LastDuration is how long the last scrape took.
	LastDuration time.Duration
}

// instance returns the instance label of t: Instance, else the URL's
// host:port, else "local" for a Gatherer.
func (t Target) instance() (string, error) {
	if t.Instance != "" {
		return t.Instance, nil
	}
	if t.Gatherer != nil {
		return "local", nil
	}
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("prom: embedded target %q: url %q: want http(s)://host:port/path", t.Job, t.URL)
	}
	return u.Host, nil
}

// scraper scrapes one target into the storage at a fixed interval. Only
// its own goroutine touches its fields, except health (under mu).
type scraper struct {
	target            Target
	db                storage.Appendable
	client            *http.Client
	interval, timeout time.Duration
	limit             int
	now               func() time.Time

	prev                  map[uint64]labels.Labels // series of the last scrape without own timestamps
	lb                    *labels.Builder
	up, duration, samples labels.Labels

	mu     sync.Mutex
	health TargetHealth
}

func newScraper(t Target, db storage.Appendable, c *http.Client, interval, timeout time.Duration, limit int) *scraper {
	report := func(name string) labels.Labels {
		return labels.FromStrings(labels.MetricName, name, "job", t.Job, "instance", t.Instance)
	}
	return &scraper{
		target: t, db: db, client: c,
		interval: interval, timeout: timeout, limit: limit,
		now:      time.Now,
		prev:     map[uint64]labels.Labels{},
		lb:       labels.NewBuilder(labels.EmptyLabels()),
		up:       report(metricUp),
		duration: report(metricScrapeDuration),
		samples:  report(metricScrapeSamples),
		health:   TargetHealth{Job: t.Job, Instance: t.Instance},
	}
}

// run scrapes at once, then every interval, until ctx is done.
func (s *scraper) run(ctx context.Context) {
	tick := time.NewTicker(s.interval)
	defer tick.Stop()
	for {
		s.scrape(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// scrape fetches the target once and writes its samples, stamped with the
// start of the scrape unless a sample carries its own timestamp, and the
// target's up, scrape_duration_seconds and scrape_samples_scraped. A
// failed scrape writes up = 0 and marks the previous series stale.
func (s *scraper) scrape(ctx context.Context) {
	start := s.now()
	sctx, cancel := context.WithTimeout(ctx, s.timeout)
	body, ctype, err := s.fetch(sctx)
	cancel()
	if ctx.Err() != nil {
		return // shutting down: a cut scrape says nothing about the target
	}
	ts := timestamp.FromTime(start)
	app := s.db.Appender(ctx)
	n := 0
	if err == nil {
		if n, err = s.appendBody(app, body, ctype, ts); err != nil {
			_ = app.Rollback()
			app = s.db.Appender(ctx)
		}
	}
	if err != nil {
		n = 0
		for _, l := range s.prev {
			_, _ = app.Append(0, l, ts, staleNaN)
		}
		clear(s.prev)
	}
	took := s.now().Sub(start)
	up := 1.0
	if err != nil {
		up = 0
	}
	_, _ = app.Append(0, s.up, ts, up)
	_, _ = app.Append(0, s.duration, ts, took.Seconds())
	_, _ = app.Append(0, s.samples, ts, float64(n))
	if cerr := app.Commit(); cerr != nil && err == nil {
		err = fmt.Errorf("commit: %w", cerr)
	}
	s.mu.Lock()
	s.health.Up = err == nil
	s.health.LastError = ""
	if err != nil {
		s.health.LastError = err.Error()
	}
	s.health.LastScrape, s.health.LastDuration = start, took
	s.mu.Unlock()
}

// Health returns the state after the last scrape.
func (s *scraper) Health() TargetHealth {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.health
}

// fetch returns the exposition of the target and its content type.
func (s *scraper) fetch(ctx context.Context) ([]byte, string, error) {
	if g := s.target.Gatherer; g != nil {
		return gatherText(g)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.target.URL, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Accept", scrapeAccept)
	req.Header.Set("User-Agent", "trigger-embedded-prometheus")
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", strconv.FormatFloat(s.timeout.Seconds(), 'f', -1, 64))
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		return nil, "", fmt.Errorf("server returned HTTP status %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxScrapeBytes+1))
	if err != nil {
		return nil, "", fmt.Errorf("read body: %w", err)
	}
	if len(b) > maxScrapeBytes {
		return nil, "", fmt.Errorf("body larger than %d bytes", maxScrapeBytes)
	}
	return b, resp.Header.Get("Content-Type"), nil
}

// gatherText gathers g and encodes it in the text format, so that an
// in-process target goes through the same parser as a remote one.
func gatherText(g prometheus.Gatherer) ([]byte, string, error) {
	mfs, err := g.Gather()
	if err != nil {
		return nil, "", fmt.Errorf("gather: %w", err)
	}
	f := expfmt.NewFormat(expfmt.TypeTextPlain)
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, f)
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return nil, "", fmt.Errorf("encode %s: %w", mf.GetName(), err)
		}
	}
	return buf.Bytes(), string(f), nil
}

// appendBody parses an exposition (Prometheus text or OpenMetrics; classic
// histograms and summaries as their _bucket/_sum/_count and quantile
// series; OpenMetrics _created series skipped) and appends its samples
// with the target's labels. A series that was in the previous scrape and
// is not in this one gets a staleness marker. It returns the number of
// samples in the body.
func (s *scraper) appendBody(app storage.Appender, b []byte, ctype string, ts int64) (int, error) {
	p, err := textparse.New(b, ctype, nil, textparse.ParserOptions{
		FallbackContentType:     "text/plain",
		OpenMetricsSkipSTSeries: true,
	})
	if p == nil {
		return 0, fmt.Errorf("content type %q: %w", ctype, err)
	}
	seen := make(map[uint64]labels.Labels, len(s.prev))
	var lset labels.Labels
	n := 0
	for {
		et, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("parse: %w", err)
		}
		if et != textparse.EntrySeries {
			continue // TYPE, HELP, UNIT, comments; native histograms come only in protobuf, not asked for
		}
		if n++; n > s.limit {
			return 0, fmt.Errorf("more than %d samples (sample limit)", s.limit)
		}
		_, tp, v := p.Series()
		p.Labels(&lset)
		l := s.withTargetLabels(lset)
		t := ts
		if tp != nil {
			t = *tp
		}
		if _, err := app.Append(0, l, t, v); err != nil && !ignorableAppendErr(err) {
			return 0, fmt.Errorf("append %s: %w", l, err)
		}
		if tp == nil {
			seen[l.Hash()] = l
		}
	}
	for h, l := range s.prev {
		if _, ok := seen[h]; !ok {
			_, _ = app.Append(0, l, ts, staleNaN)
		}
	}
	s.prev = seen
	return n, nil
}

// withTargetLabels adds job and instance to a scraped label set; a
// scraped job or instance label is kept as exported_job or
// exported_instance, as Prometheus does without honor_labels.
func (s *scraper) withTargetLabels(l labels.Labels) labels.Labels {
	s.lb.Reset(l)
	for _, kv := range [2][2]string{{"job", s.target.Job}, {"instance", s.target.Instance}} {
		if v := l.Get(kv[0]); v != "" {
			s.lb.Set("exported_"+kv[0], v)
		}
		s.lb.Set(kv[0], kv[1])
	}
	return s.lb.Labels()
}

// ignorableAppendErr reports the per-sample rejections that Prometheus
// counts and skips rather than failing the scrape: a sample with its own
// timestamp repeated or older than the last one.
func ignorableAppendErr(err error) bool {
	return errors.Is(err, storage.ErrOutOfOrderSample) ||
		errors.Is(err, storage.ErrDuplicateSampleForTimestamp) ||
		errors.Is(err, storage.ErrOutOfBounds) ||
		errors.Is(err, storage.ErrTooOldSample)
}
