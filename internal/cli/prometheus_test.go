package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/runner/prom"
)

// recordRun leaves, in runDir/prometheus, what a run's embedded
// Prometheus leaves: a few scrapes of a counter x_total = 5.
func recordRun(t *testing.T, runDir string) {
	t.Helper()
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x_total", Help: "x"})
	c.Add(5)
	reg.MustRegister(c)
	e, err := prom.StartEmbedded(context.Background(), prom.EmbeddedConfig{Dir: filepath.Join(runDir, "prometheus"),
		Targets: []prom.Target{{Job: "trigger", Gatherer: reg}}, ScrapeInterval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for range 150 { // at most 30 s
		if n, err := e.Querier().Instant(context.Background(), `count_over_time(x_total[1m])`, time.Now()); err == nil && n >= 3 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("no 3 scrapes within 30 s")
}

// treeState maps every entry under dir (dir included) to its mode, size
// and mtime.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[path] = fmt.Sprintf("%v %d %s", fi.Mode(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	servingLine = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+) `)
	tokenLine   = regexp.MustCompile(`bearer token: ([0-9a-f]{64})`)
)

// trigger prometheus RUN_DIR serves a copy on a free loopback port,
// prints its URL and token and writes the token file (mode 0600, an
// existing file's wider mode replaced, removed on exit); it refuses the
// audit's query, requests without the token and a foreign Host; and the
// recorded folder's files, sizes, modes and mtimes are the same after.
func TestPrometheusCommandServesACopy(t *testing.T) {
	runDir := t.TempDir()
	recordRun(t, runDir)
	before := treeState(t, runDir)
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	code := make(chan int, 1)
	go func() { // owned by the test, which waits for code
		var stderr strings.Builder
		c := Main(ctx, []string{"prometheus", "--token-file", tokenFile, runDir}, pw, &stderr)
		if c != 0 {
			t.Logf("stderr: %s", stderr.String())
		}
		pw.Close()
		code <- c
	}()
	sc := bufio.NewScanner(pr)
	var base, token string
	for (base == "" || token == "") && sc.Scan() {
		t.Log(sc.Text())
		if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
		}
		if m := tokenLine.FindStringSubmatch(sc.Text()); m != nil {
			token = m[1]
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }() // the rest, until Main returns
	if base == "" || token == "" {
		cancel()
		t.Fatalf("no URL or token printed; exit %d", <-code)
	}
	if strings.HasSuffix(base, ":9090") {
		t.Errorf("served on %s, want a free port", base)
	}

	fi, err := os.Stat(tokenFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if b, _ := os.ReadFile(tokenFile); strings.TrimSpace(string(b)) != token {
		t.Errorf("token file holds %q, want the printed token", b)
	}

	for _, tc := range []struct {
		name, query, token, host string
		want                     int
		body                     string
	}{
		{"served", `max_over_time(x_total[10m])`, token, "", http.StatusOK, `"5"`},
		{"the audit's query", `count_over_time(up[100d:1ms])`, token, "", http.StatusBadRequest, "query too costly"},
		{"no token", `1`, "", "", http.StatusUnauthorized, "bearer token"},
		{"foreign Host", `1`, token, "evil.example", http.StatusForbidden, "loopback"},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v1/query?"+url.Values{"query": {tc.query}}.Encode(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != tc.want || !strings.Contains(string(b), tc.body) {
			t.Errorf("%s: %d %s, want %d and %q", tc.name, resp.StatusCode, b, tc.want, tc.body)
		}
	}

	cancel()
	if c := <-code; c != 0 {
		t.Errorf("exit %d after the interrupt, want 0", c)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file left after exit: %v", err)
	}
	if after := treeState(t, runDir); !maps.Equal(before, after) {
		for p, s := range after {
			if before[p] != s {
				t.Errorf("%s: %s, was %q", p, s, before[p])
			}
		}
		for p := range before {
			if _, ok := after[p]; !ok {
				t.Errorf("%s: removed", p)
			}
		}
	}
}
