package runner

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/trigger-test/trigger/scenarios"
)

// mixTarget is a loopback service that logs every attempt it gets (its
// path, X-Request-Id, X-Attempt and body) and fails a fifth of the first
// attempts with a 500, so some logical requests retry.
type mixTarget struct {
	url string
	mu  sync.Mutex
	log []mixAttempt
}

type mixAttempt struct{ path, id, attempt, body, key, query string }

// uuidForm is random.uuid's form.
var uuidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// quoteBody is the quote request's body: jsonencode of its per-request
// values.
type quoteBody struct {
	N    *int64  `json:"n"`
	Q    *int64  `json:"q"`
	U    *string `json:"u"`
	User *string `json:"user"`
}

func startMixTarget(t *testing.T) *mixTarget {
	t.Helper()
	m := &mixTarget{}
	m.url = serveLoopback(t, m)
	return m
}

func (m *mixTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	a := mixAttempt{path: r.URL.Path, id: r.Header.Get("X-Request-Id"), attempt: r.Header.Get("X-Attempt"), body: string(body),
		key: r.Header.Get("Idempotency-Key"), query: r.URL.Query().Get("q")}
	m.mu.Lock()
	m.log = append(m.log, a)
	m.mu.Unlock()
	h := fnv.New32a()
	_, _ = h.Write([]byte(a.id))
	if a.attempt == "1" && h.Sum32()%5 == 0 {
		w.WriteHeader(http.StatusInternalServerError)
	}
}

// A three-request mix with weights 6:3:1 arrives in those shares (within
// 3 points over some 10,000 first attempts), every attempt of a logical
// request resends its request (path, body, id) with its per-request values
// (request.id, request.seq, random.uuid) evaluated once for it and never
// for another, data rows are drawn in order (the n-th logical request
// gets row n, wrapping around) and written as JSON in a jsonencode'd body
// and percent-encoded in a URL, and result.json says what each request
// got.
func TestRequestMixArrivesInItsShares(t *testing.T) {
	skipShort(t)
	m := startMixTarget(t)
	var users [][2]string
	csvText := "email,name\n"
	for i := range 37 {
		u := [2]string{fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("User \"%d\" & co", i)}
		users = append(users, u)
		csvText += u[0] + `,"` + strings.ReplaceAll(u[1], `"`, `""`) + "\"\n"
	}
	// The data file sits in the scenario's folder, the only place a
	// scenario may read from.
	dir := t.TempDir()
	file := filepath.Join(dir, "users.csv")
	if err := os.WriteFile(file, []byte(csvText), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `
scenario "mix" { max_duration = "1m" }
data "users" { file = "users.csv" }
target {
  allow_hosts = ["127.0.0.1"]
  headers     = { "X-Common" = "yes" }
  request "quote" {
    weight  = 6
    method  = "POST"
    url     = "` + m.url + `/v1/quote"
    headers = { "Idempotency-Key" = request.id }
    body    = jsonencode({ n = request.seq, u = random.uuid, user = data.users.email, q = random::int(1, 6) })
  }
  request "search" {
    weight = 3
    url    = "` + m.url + `/v1/search?q=${data.users.name}"
  }
  request "order" {
    method = "PUT"
    url    = "` + m.url + `/v1/order"
    body   = "order"
  }
}
client {
  timeout = "500ms"
  retry {
    max_retries = 1
    on          = ["5xx"]
  }
}
service { capacity = 100000 }
load {
  baseline = 500
  warmup   = "20s"
  spike {
    multiplier = 1.2
    duration   = "1s"
  }
  observe = "2s"
}
recovery { hold = "1s" }
`
	s, err := scenarios.Parse(filepath.Join(dir, "mix.hcl"), []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	// The 500s fail the warmup's baseline check: the run ends inconclusive
	// before the spike, which is beside the point here; its result and
	// the target's log are what is checked.
	res, err := runE2E(t, context.Background(), s)
	if res == nil {
		t.Fatalf("run: %v", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	firsts := map[string]float64{}
	var total float64
	byID := map[string]mixAttempt{}
	retried := 0
	for _, a := range m.log {
		if a.attempt == "1" {
			firsts[a.path]++
			total++
		}
		if prev, ok := byID[a.id]; ok {
			retried++
			if prev.path != a.path || prev.body != a.body {
				t.Fatalf("logical request %s: attempt %s sent %s %q after %s %q", a.id, a.attempt, a.path, a.body, prev.path, prev.body)
			}
		}
		byID[a.id] = a
	}
	bodies := map[string]string{} // quote's body → the logical request that sent it
	qs := map[int64]bool{}
	for _, a := range m.log {
		seq, err := strconv.ParseInt(a.id[strings.LastIndex(a.id, "-")+1:], 10, 64)
		if err != nil {
			t.Fatalf("X-Request-Id %q", a.id)
		}
		row := users[(seq-1)%int64(len(users))]
		if a.path == "/v1/search" && a.query != row[1] {
			t.Fatalf("search of logical request %d asked for %q; want row %d's name %q", seq, a.query, (seq-1)%int64(len(users)), row[1])
		}
		if a.path != "/v1/quote" {
			continue
		}
		var b quoteBody
		if err := json.Unmarshal([]byte(a.body), &b); err != nil || b.N == nil || b.Q == nil || b.U == nil || b.User == nil ||
			*b.N != seq || *b.Q < 1 || *b.Q > 6 || !uuidForm.MatchString(*b.U) || *b.User != row[0] {
			t.Fatalf("quote body %q of logical request %d: want {\"n\":%d,\"q\":1-6,\"u\":UUID,\"user\":%q} (%v)", a.body, seq, seq, row[0], err)
		}
		qs[*b.Q] = true
		if a.key != a.id {
			t.Fatalf("quote attempt of %s carried Idempotency-Key %q; want its request id", a.id, a.key)
		}
		if other, ok := bodies[a.body]; ok && other != a.id {
			t.Fatalf("logical requests %s and %s sent the same body %q: per-request values evaluated once for two", other, a.id, a.body)
		}
		bodies[a.body] = a.id
	}
	if len(qs) != 6 {
		t.Errorf("random::int(1, 6) drew %v; want each of 1 to 6", qs)
	}
	if total < 10000 || retried == 0 {
		t.Fatalf("%g first attempts, %d retries logged; want at least 10,000 and some retries", total, retried)
	}
	for path, want := range map[string]float64{"/v1/quote": 0.6, "/v1/search": 0.3, "/v1/order": 0.1} {
		if got := firsts[path] / total; math.Abs(got-want) > 0.03 {
			t.Errorf("%s: %.3f of first attempts; want %.1f ± 0.03", path, got, want)
		}
	}
	rr := res.Document.Observation.Requests
	// result.json counts what the timeline's rows hold: the attempts of
	// the run's last, cut second are in the target's log only.
	if len(rr) != 3 || rr[0].Name != "quote" || rr[0].ExpectedShare != 0.6 || math.Abs(rr[0].Share-0.6) > 0.03 ||
		rr[0].FirstSent > firsts["/v1/quote"] || rr[0].FirstSent < firsts["/v1/quote"]-300 {
		t.Errorf("result's requests %+v; want quote first, 0.6 expected, its %g first attempts sent but for the last second's", rr, firsts["/v1/quote"])
	}
	if q := rr[0]; !(q.SuccessRatio > 0.7 && q.SuccessRatio < 0.9) || q.FirstErrors == 0 || q.FirstErrors != q.FirstFailed {
		t.Errorf("quote: success ratio %g, %g errors of %g failed; want about 0.8, every failure a 500", q.SuccessRatio, q.FirstErrors, q.FirstFailed)
	}
	// timeline.csv has each request's columns, which add up to its first
	// attempts sent.
	f, err := os.Open(filepath.Join(res.OutDir, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(recs[0], "request.search.first")
	if col < 0 || !slices.Contains(recs[0], "request.order.first_errors") {
		t.Fatalf("timeline.csv header %v: no request.NAME columns", recs[0])
	}
	var searchSent float64
	for _, rec := range recs[1:] {
		v, _ := strconv.ParseFloat(rec[col], 64)
		searchSent += v
	}
	if searchSent != rr[1].FirstSent || searchSent > firsts["/v1/search"] || searchSent < firsts["/v1/search"]-150 {
		t.Errorf("timeline.csv: request.search.first adds up to %g; result.json says %g, the target logged %g", searchSent, rr[1].FirstSent, firsts["/v1/search"])
	}
	t.Logf("shares: quote %.3f, search %.3f, order %.3f of %g first attempts; %d retries",
		firsts["/v1/quote"]/total, firsts["/v1/search"]/total, firsts["/v1/order"]/total, total, retried)
}
