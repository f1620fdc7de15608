package prom

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/storage"
)

// rec is one appended sample.
type rec struct {
	l string // labels.Labels.String()
	t int64
	v float64
}

// fakeStorage records committed samples; it rejects a sample whose series
// already has one at the same or a later time, as the TSDB does.
type fakeStorage struct {
	committed []rec
	last      map[string]int64
}

func (s *fakeStorage) Appender(context.Context) storage.Appender {
	if s.last == nil {
		s.last = map[string]int64{}
	}
	return &fakeApp{s: s}
}

type fakeApp struct {
	storage.Appender // only Append, Commit and Rollback are used
	s                *fakeStorage
	pending          []rec
}

func (a *fakeApp) Append(_ storage.SeriesRef, l labels.Labels, t int64, v float64) (storage.SeriesRef, error) {
	k := l.String()
	if last, ok := a.s.last[k]; ok && t <= last {
		if t == last {
			return 0, storage.ErrDuplicateSampleForTimestamp
		}
		return 0, storage.ErrOutOfOrderSample
	}
	for _, p := range a.pending {
		if p.l == k && p.t >= t {
			return 0, storage.ErrDuplicateSampleForTimestamp
		}
	}
	a.pending = append(a.pending, rec{k, t, v})
	return 1, nil
}

func (a *fakeApp) Commit() error {
	for _, p := range a.pending {
		a.s.last[p.l] = p.t
	}
	a.s.committed = append(a.s.committed, a.pending...)
	a.pending = nil
	return nil
}

func (a *fakeApp) Rollback() error { a.pending = nil; return nil }

// find returns the committed samples of the series whose labels print as l.
func (s *fakeStorage) find(l string) []rec {
	var out []rec
	for _, r := range s.committed {
		if r.l == l {
			out = append(out, r)
		}
	}
	return out
}

func testScraper(db storage.Appendable, g prometheus.Gatherer) (*scraper, *time.Time) {
	now := time.Unix(1_700_000_000, 0)
	s := newScraper(Target{Job: "j", Gatherer: g, Instance: "i"}, db, nil, time.Second, time.Second, 100)
	s.now = func() time.Time { now = now.Add(10 * time.Millisecond); return now }
	return s, &now
}

func TestAppendBodyFormats(t *testing.T) {
	const ts = 1_700_000_000_000
	cases := []struct {
		name, ctype, body string
		want              []rec
	}{
		{
			// The text format: labels added, a scraped job kept as
			// exported_job, a sample's own timestamp honoured, classic
			// histogram series as they are.
			name:  "text",
			ctype: "text/plain; version=0.0.4; charset=utf-8",
			body: `# HELP a_total A counter.
# TYPE a_total counter
a_total{code="200"} 3
# TYPE g gauge
g{job="inner"} 1.5 1699999999000
# TYPE h histogram
h_bucket{le="0.5"} 1
h_bucket{le="+Inf"} 2
h_sum 0.7
h_count 2
`,
			want: []rec{
				{`{__name__="a_total", code="200", instance="i", job="j"}`, ts, 3},
				{`{__name__="g", exported_job="inner", instance="i", job="j"}`, 1699999999000, 1.5},
				{`{__name__="h_bucket", instance="i", job="j", le="0.5"}`, ts, 1},
				{`{__name__="h_bucket", instance="i", job="j", le="+Inf"}`, ts, 2},
				{`{__name__="h_sum", instance="i", job="j"}`, ts, 0.7},
				{`{__name__="h_count", instance="i", job="j"}`, ts, 2},
			},
		},
		{
			// OpenMetrics: _created series skipped, le normalised.
			name:  "openmetrics",
			ctype: "application/openmetrics-text; version=1.0.0; charset=utf-8",
			body: `# TYPE c counter
# HELP c A counter.
c_total 4
c_created 1.6e9
# TYPE h histogram
h_bucket{le="1"} 1
h_bucket{le="+Inf"} 1
h_count 1
h_sum 0.5
h_created 1.6e9
# EOF
`,
			want: []rec{
				{`{__name__="c_total", instance="i", job="j"}`, ts, 4},
				{`{__name__="h_bucket", instance="i", job="j", le="1.0"}`, ts, 1},
				{`{__name__="h_bucket", instance="i", job="j", le="+Inf"}`, ts, 1},
				{`{__name__="h_count", instance="i", job="j"}`, ts, 1},
				{`{__name__="h_sum", instance="i", job="j"}`, ts, 0.5},
			},
		},
		{
			// No content type: the text format is assumed.
			name: "no content type", ctype: "", body: "x 1\n",
			want: []rec{{`{__name__="x", instance="i", job="j"}`, ts, 1}},
		},
	}
	for _, c := range cases {
		db := &fakeStorage{}
		s, _ := testScraper(db, nil)
		app := db.Appender(context.Background())
		n, err := s.appendBody(app, []byte(c.body), c.ctype, ts)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		_ = app.Commit()
		if n != len(c.want) || len(db.committed) != len(c.want) {
			t.Errorf("%s: %d samples, %d committed, want %d:\n%v", c.name, n, len(db.committed), len(c.want), db.committed)
			continue
		}
		for i, w := range c.want {
			if db.committed[i] != w {
				t.Errorf("%s: sample %d = %+v, want %+v", c.name, i, db.committed[i], w)
			}
		}
	}
}

func TestAppendBodyErrors(t *testing.T) {
	cases := []struct {
		name, body, want string
	}{
		// Not an exposition.
		{"garbage", "<html>oops</html>\n", "parse"},
		// More samples than the limit (100 in testScraper).
		{"limit", manySeries(101), "sample limit"},
	}
	for _, c := range cases {
		db := &fakeStorage{}
		s, _ := testScraper(db, nil)
		_, err := s.appendBody(db.Appender(context.Background()), []byte(c.body), "text/plain", 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

func manySeries(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("x{i=\"")
		b.WriteString(strings.Repeat("a", i+1))
		b.WriteString("\"} 1\n")
	}
	return b.String()
}

// gathererOf returns a Gatherer serving what *cur points at, or failing
// when it is nil.
func gathererOf(cur *[]*dto.MetricFamily) prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		if *cur == nil {
			return nil, errors.New("collector broke")
		}
		return *cur, nil
	})
}

func gauges(names ...string) []*dto.MetricFamily {
	out := make([]*dto.MetricFamily, len(names))
	for i, n := range names {
		typ := dto.MetricType_GAUGE
		v := 1.0
		out[i] = &dto.MetricFamily{Name: &n, Help: &n, Type: &typ, Metric: []*dto.Metric{{Gauge: &dto.Gauge{Value: &v}}}}
	}
	return out
}

// A scrape writes up, scrape_duration_seconds and scrape_samples_scraped;
// a series that vanishes gets a staleness marker; a failed scrape writes
// up = 0 and marks every series of the previous scrape stale.
func TestScrapeReportAndStaleness(t *testing.T) {
	db := &fakeStorage{}
	var cur []*dto.MetricFamily
	s, _ := testScraper(db, gathererOf(&cur))
	ctx := context.Background()
	const a, b = `{__name__="a", instance="i", job="j"}`, `{__name__="b", instance="i", job="j"}`
	up := `{__name__="up", instance="i", job="j"}`
	dur := `{__name__="scrape_duration_seconds", instance="i", job="j"}`
	n := `{__name__="scrape_samples_scraped", instance="i", job="j"}`

	cur = gauges("a", "b")
	s.scrape(ctx) // scrape 1: a, b
	cur = gauges("a")
	s.scrape(ctx) // scrape 2: b vanished
	cur = nil
	s.scrape(ctx) // scrape 3: failed
	cur = gauges("a", "b")
	s.scrape(ctx) // scrape 4: back

	isStale := func(r rec) bool { return math.Float64bits(r.v) == value.StaleNaN }
	checks := []struct {
		name   string
		series string
		want   []string // per sample: "1", "stale", ...
	}{
		// a: present, present, stale after the failure, present.
		{"a", a, []string{"1", "1", "stale", "1"}},
		// b: present, stale when it vanished, (nothing on failure), present.
		{"b", b, []string{"1", "stale", "1"}},
		// up: 1, 1, 0, 1.
		{"up", up, []string{"1", "1", "0", "1"}},
		// samples scraped: 2, 1, 0, 2.
		{"samples", n, []string{"2", "1", "0", "2"}},
	}
	for _, c := range checks {
		got := db.find(c.series)
		var s []string
		for _, r := range got {
			if isStale(r) {
				s = append(s, "stale")
			} else {
				s = append(s, formatFloat(r.v))
			}
		}
		if strings.Join(s, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: %v, want %v", c.name, s, c.want)
		}
	}
	// The duration is measured with the scraper's clock: 10 ms per reading.
	for _, r := range db.find(dur) {
		if r.v != 0.01 {
			t.Errorf("scrape_duration_seconds = %v, want 0.01", r.v)
		}
	}
	h := s.Health()
	if !h.Up || h.LastError != "" || h.Job != "j" || h.Instance != "i" {
		t.Errorf("health after recovery: %+v", h)
	}
	cur = nil
	s.scrape(ctx)
	if h := s.Health(); h.Up || !strings.Contains(h.LastError, "collector broke") {
		t.Errorf("health after a failure: %+v", h)
	}
	// A cancelled scrape (shutdown) writes nothing.
	before := len(db.committed)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	cur = gauges("a")
	s.scrape(cctx)
	if len(db.committed) != before {
		t.Errorf("a scrape during shutdown wrote %d samples", len(db.committed)-before)
	}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// The loop scrapes at once, then once per interval, and stops when its
// context is cancelled (fake time: testing/synctest).
func TestScrapeLoopTicks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		db := &fakeStorage{}
		cur := gauges("a")
		s := newScraper(Target{Job: "j", Gatherer: gathererOf(&cur), Instance: "i"}, db, nil, 100*time.Millisecond, 100*time.Millisecond, 100)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { s.run(ctx); close(done) }()
		time.Sleep(1050 * time.Millisecond)
		cancel()
		<-done
		ups := db.find(`{__name__="up", instance="i", job="j"}`)
		if len(ups) != 11 {
			t.Fatalf("%d scrapes in 1.05 s at 100 ms, want 11 (at 0, 100, ..., 1000 ms)", len(ups))
		}
		for i, r := range ups {
			if want := ups[0].t + int64(i)*100; r.t != want {
				t.Errorf("scrape %d at %d ms, want %d", i, r.t, want)
			}
		}
	})
}
