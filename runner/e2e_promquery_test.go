package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// embeddedLine is the note that tells the operator where the run's
// embedded Prometheus is and its token.
var embeddedLine = regexp.MustCompile(`embedded Prometheus at (http://127\.0\.0\.1:\d+), bearer token ([0-9a-f]{64})`)

// hostileAsk is one request of TestE2EHostileQueryLeavesRunToItsVerdict.
type hostileAsk struct {
	name, path, query string
	token             bool   // send the run's token
	host              string // the Host header; "" = the URL's
	want              int    // status code
}

// askEmbedded sends a to the API at base and returns the status code
// and the start of the body.
func askEmbedded(ctx context.Context, base, token string, a hostileAsk) (int, string, error) {
	form := url.Values{"query": {a.query}}
	if a.path == "/api/v1/query_range" {
		now := time.Now()
		form.Set("start", fmt.Sprint(now.Add(-time.Minute).Unix()))
		form.Set("end", fmt.Sprint(now.Unix()))
		form.Set("step", "1")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+a.path+"?"+form.Encode(), nil)
	if err != nil {
		return 0, "", err
	}
	if a.token {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if a.host != "" {
		req.Host = a.host
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	return resp.StatusCode, string(b), nil
}

// The audit's query (count_over_time(up[100d:1ms]), about 69 GB for the
// engine), sent with the run's token to its live embedded Prometheus in
// the middle of the spike, is refused (400) before any evaluation, as are
// requests without the token (401) or from a page of another site
// (403); the run goes on to its verdict and writes result.json.
func TestE2EHostileQueryLeavesRunToItsVerdict(t *testing.T) {
	skipShort(t)
	url, _ := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	// System A at ρ = 0.2 with one retry: A·ρ = 0.4, recovers.
	s := e2eScenario{url: url, capacity: 200, baseline: 40, k: 5, retries: 1, spike: "3s", observe: "15s"}.parse(t)
	asks := []hostileAsk{
		{"audit query", "/api/v1/query", `count_over_time(up[100d:1ms])`, true, "", http.StatusBadRequest},
		{"range subquery", "/api/v1/query_range", `max_over_time(up[1d:1ms])`, true, "", http.StatusBadRequest},
		{"deep", "/api/v1/query", strings.Repeat("-", 500) + "up", true, "", http.StatusBadRequest},
		{"no token", "/api/v1/query", `up`, false, "", http.StatusUnauthorized},
		{"rebound name", "/api/v1/query", `up`, true, "attacker.example", http.StatusForbidden},
		{"the token, within bounds", "/api/v1/query", `sum(up)`, true, "", http.StatusOK},
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var once sync.Once
	endpoint := make(chan [2]string, 1)
	spike := make(chan struct{})
	logf := func(format string, args ...any) {
		t.Logf(format, args...)
		if m := embeddedLine.FindStringSubmatch(fmt.Sprintf(format, args...)); m != nil {
			select {
			case endpoint <- [2]string{m[1], m[2]}:
			default:
			}
		}
	}
	progress := func(st Status) {
		if st.Phase == analysis.PhaseSpike {
			once.Do(func() { close(spike) })
		}
	}
	type answer struct {
		code int
		body string
		err  error
	}
	answers := make(chan []answer, 1)
	go func() { // owned by the test, which waits for answers
		defer close(answers)
		var ep [2]string
		select {
		case ep = <-endpoint:
		case <-ctx.Done():
			return
		}
		select {
		case <-spike:
		case <-ctx.Done():
			return
		}
		var out []answer
		for _, a := range asks {
			code, body, err := askEmbedded(ctx, ep[0], ep[1], a)
			out = append(out, answer{code, body, err})
		}
		answers <- out
	}()
	dir := t.TempDir()
	res, err := runLogged(t, ctx, Options{Test: testOf(t, s), OutDir: dir, Logf: logf, Progress: progress, QueryWarmup: 1500 * time.Millisecond})
	got, ok := <-answers
	if !ok {
		t.Fatal("the queries were never sent: no embedded Prometheus note, or no spike")
	}
	for i, a := range asks {
		g := got[i]
		if g.err != nil || g.code != a.want {
			t.Errorf("%s: %d %q %v, want %d", a.name, g.code, g.body, g.err, a.want)
		}
		if a.want == http.StatusBadRequest && !strings.Contains(g.body, "query too costly") {
			t.Errorf("%s: %q, want it to say the query is too costly", a.name, g.body)
		}
	}
	var re *Error
	if err != nil && (!errors.As(err, &re) || re.Kind == KindHarness || re.Kind == KindUsage) {
		t.Fatalf("run: %v, want a verdict", err)
	}
	if res == nil || res.Document.Verdict == "" {
		t.Fatalf("no verdict: %+v", res)
	}
	if doc := readResult(t, dir); doc.Verdict != res.Document.Verdict {
		t.Errorf("result.json verdict %s, run %s", doc.Verdict, res.Document.Verdict)
	}
	t.Logf("verdict %s", res.Document.Verdict)
}

// A scenario whose own query is over the cost bounds (here put past the
// scenario's checks, as the embedded server must not rely on them) stops
// at the preflight: a usage error naming the query and its cost, and not
// one request sent to the target.
func TestE2EHostileScenarioQueryStopsAtPreflight(t *testing.T) {
	skipShort(t)
	url, sp := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	s := e2eScenario{url: url, capacity: 200, baseline: 40, k: 5, retries: 1, spike: "3s", observe: "15s"}.parse(t)
	s.Prometheus.Ingress = `count_over_time(up[100d:1ms])`
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := runLogged(t, ctx, Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, QueryWarmup: 500 * time.Millisecond})
	var re *Error
	if !errors.As(err, &re) || re.Kind != KindUsage {
		t.Fatalf("err = %v, want a usage error", err)
	}
	for _, want := range []string{"ingress", "query too costly", "[100d:1ms]"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
	if n := sp.Stats().IngressFirst; n != 0 {
		t.Errorf("the target got %d requests, want none", n)
	}
}
