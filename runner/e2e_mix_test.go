package runner

import (
	"context"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"regexp"
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

type mixAttempt struct{ path, id, attempt, body, key string }

// uuidBody is quote's body with request.seq and random.uuid filled in.
var uuidBody = regexp.MustCompile(`^\{"n":[0-9]+,"u":"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"\}$`)

func startMixTarget(t *testing.T) *mixTarget {
	t.Helper()
	m := &mixTarget{}
	m.url = serveLoopback(t, m)
	return m
}

func (m *mixTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	a := mixAttempt{path: r.URL.Path, id: r.Header.Get("X-Request-Id"), attempt: r.Header.Get("X-Attempt"), body: string(body),
		key: r.Header.Get("Idempotency-Key")}
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
// for another, and result.json says what each request got.
func TestRequestMixArrivesInItsShares(t *testing.T) {
	skipShort(t)
	m := startMixTarget(t)
	src := `
scenario "mix" { max_duration = "1m" }
target {
  allow_hosts = ["127.0.0.1"]
  headers     = { "X-Common" = "yes" }
  request "quote" {
    weight  = 6
    method  = "POST"
    url     = "` + m.url + `/v1/quote"
    headers = { "Idempotency-Key" = request.id }
    body    = "{\"n\":${request.seq},\"u\":\"${random.uuid}\"}"
  }
  request "search" {
    weight = 3
    url    = "` + m.url + `/v1/search"
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
	s, err := scenarios.Parse("mix.hcl", []byte(src), nil)
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
	for _, a := range m.log {
		if a.path != "/v1/quote" {
			continue
		}
		if !uuidBody.MatchString(a.body) {
			t.Fatalf("quote body %q: want {\"n\":SEQ,\"u\":\"UUID\"} with the values filled in", a.body)
		}
		if a.key != a.id {
			t.Fatalf("quote attempt of %s carried Idempotency-Key %q; want its request id", a.id, a.key)
		}
		if other, ok := bodies[a.body]; ok && other != a.id {
			t.Fatalf("logical requests %s and %s sent the same body %q: per-request values evaluated once for two", other, a.id, a.body)
		}
		bodies[a.body] = a.id
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
	if len(rr) != 3 || rr[0].Name != "quote" || rr[0].ExpectedShare != 0.6 || math.Abs(rr[0].Share-0.6) > 0.03 ||
		rr[0].FirstSent != firsts["/v1/quote"] {
		t.Errorf("result's requests %+v; want quote first, 0.6 expected, its %g first attempts sent", rr, firsts["/v1/quote"])
	}
	t.Logf("shares: quote %.3f, search %.3f, order %.3f of %g first attempts; %d retries",
		firsts["/v1/quote"]/total, firsts["/v1/search"]/total, firsts["/v1/order"]/total, total, retried)
}
