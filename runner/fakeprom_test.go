package runner

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProm is a Prometheus HTTP API on loopback that can be told to
// misbehave: it answers every instant query with one series of value 1
// (the query "1" with a scalar, as a real server does), and in mode
// "hang" holds every request until the client gives up, in "slow" answers
// after slowBy, in "dead" is closed (connections refused), and in "fire"
// answers queries containing fireOn with a series and the others as usual.
type fakeProm struct {
	srv    *httptest.Server
	mode   atomic.Value // string
	slowBy time.Duration
	// empty lists queries answered with no series (a quiet stop condition).
	empty   sync.Map
	queries atomic.Int64
}

func startFakeProm(t *testing.T) *fakeProm {
	t.Helper()
	f := &fakeProm{slowBy: 1500 * time.Millisecond}
	f.mode.Store("ok")
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProm) setMode(m string) {
	f.mode.Store(m)
	if m == "dead" {
		f.srv.CloseClientConnections()
		f.srv.Listener.Close()
	}
}

func (f *fakeProm) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/query" {
		http.NotFound(w, r)
		return
	}
	_ = r.ParseForm()
	q := r.Form.Get("query")
	f.queries.Add(1)
	switch f.mode.Load().(string) {
	case "hang":
		<-r.Context().Done()
		return
	case "slow":
		select {
		case <-time.After(f.slowBy):
		case <-r.Context().Done():
			return
		}
	}
	now := float64(time.Now().UnixNano()) / 1e9
	w.Header().Set("Content-Type", "application/json")
	switch {
	case q == "1":
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"scalar","result":[%.3f,"1"]}}`, now)
	case f.isEmpty(q):
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	default:
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"svc","instance":"x"},"value":[%.3f,"1"]}]}}`, now)
	}
}

func (f *fakeProm) isEmpty(q string) bool {
	v, ok := f.empty.Load(q)
	return ok && v.(bool)
}

// target is a service on loopback that answers 200 at once and records
// when the first and the last request came.
type target struct {
	srv         *httptest.Server
	first, last atomic.Int64 // unix ns
	started     chan struct{}
	once        sync.Once
}

func startTarget(t *testing.T) *target {
	t.Helper()
	tg := &target{started: make(chan struct{})}
	tg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		tg.once.Do(func() { tg.first.Store(now); close(tg.started) })
		tg.last.Store(now)
	}))
	t.Cleanup(tg.srv.Close)
	return tg
}

func (tg *target) lastAt() time.Time { return time.Unix(0, tg.last.Load()) }

// brakeScenario is a small run against tg with its metrics read from fp:
// 20 first attempts/s, a 2 s spike at twice that, then a long observe.
func brakeScenario(tg *target, fp *fakeProm, scenarioAttrs, extra string) string {
	return fmt.Sprintf(`
scenario "brakes" { %[3]s }
target {
  url         = "%[1]s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout = "500ms"
  retry { max_retries = 1 }
}
service { capacity = 100 }
load {
  baseline = 20
  warmup   = "3s"
  spike {
    multiplier = 2
    duration   = "2s"
  }
  observe = "60s"
}
prometheus {
  address = %[2]q
  timeout = "5s"
  ingress = "sum(rate(svc_ingress_total[3s]))"
  served  = "sum(rate(svc_served_total[3s]))"
}
recovery { hold = "2s" }
%[4]s
`, tg.srv.URL, fp.srv.URL, scenarioAttrs, extra)
}
