package prom

import (
	"context"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// fileState is what a folder's entry looks like from outside.
type fileState struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
}

// snapshot returns the state of every entry under dir, dir itself included.
func snapshot(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	out := map[string]fileState{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fileState{fi.Mode(), fi.Size(), fi.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// record runs an Embedded scraping a counter into dir until it has a few
// scrapes, and closes it.
func record(t *testing.T, dir string) {
	t.Helper()
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x_total", Help: "x"})
	c.Add(5)
	reg.MustRegister(c)
	e, err := StartEmbedded(context.Background(), EmbeddedConfig{Dir: dir, Targets: []Target{{Job: "app", Gatherer: reg}}, ScrapeInterval: testInterval})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "3 scrapes", func() bool {
		n, ok := instantOK(e.Querier(), `count_over_time(x_total[1m])`)
		return ok && n >= 3
	})
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
}

// OpenRecorded serves a recorded run's data from a private copy: the
// recorded folder's entries, sizes, modes and mtimes are the same after
// serving (opening a TSDB in place writes a WAL segment); the copy is gone
// after Close; and the server has the run's guard and cost bounds.
func TestOpenRecordedWritesNothing(t *testing.T) {
	verifyNoLeaks(t)
	dir := filepath.Join(t.TempDir(), "run", "prometheus")
	record(t, dir)
	before := snapshot(t, filepath.Dir(dir))

	r, err := OpenRecorded(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(r.Dir(), filepath.Dir(dir)) {
		t.Errorf("serving from %s, inside the recorded folder", r.Dir())
	}
	copyDir := filepath.Dir(r.Dir())
	if fi, err := os.Stat(copyDir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the copy's folder: %v %v, want mode 0700", fi.Mode(), err)
	}
	if v, err := r.Querier().Instant(context.Background(), `max_over_time(x_total[10m])`, time.Now()); err != nil || v != 5 {
		t.Errorf("served: x_total = %v, %v; want 5", v, err)
	}
	c := tokenClient(r.Token())
	if a := get(t, c, r.URL(), "/api/v1/query", url.Values{"query": {`count_over_time(x_total[100d:1ms])`}}, nil); a.code != http.StatusBadRequest || !strings.Contains(a.body.Error, "query too costly") {
		t.Errorf("the audit's query: %d %+v, want 400 too costly", a.code, a.body)
	}
	if a := get(t, &http.Client{Timeout: 30 * time.Second}, r.URL(), "/api/v1/query", url.Values{"query": {`1`}}, nil); a.code != http.StatusUnauthorized {
		t.Errorf("without the token: %d %+v, want 401", a.code, a.body)
	}
	if a := get(t, c, r.URL(), "/api/v1/query", url.Values{"query": {`1`}}, map[string]string{"Host": "evil.example"}); a.code != http.StatusForbidden {
		t.Errorf("foreign Host: %d %+v, want 403", a.code, a.body)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(copyDir); !os.IsNotExist(err) {
		t.Errorf("the copy %s is left after Close: %v", copyDir, err)
	}
	after := snapshot(t, filepath.Dir(dir))
	if !maps.Equal(before, after) {
		for p, s := range after {
			if b, ok := before[p]; !ok || b != s {
				t.Errorf("%s: %+v, was %+v (present %v)", p, s, b, ok)
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("%s: removed", p)
			}
		}
	}
}
