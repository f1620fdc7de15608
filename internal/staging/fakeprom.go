package staging

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// FakePrometheus is a Prometheus HTTP API on loopback that can be told to
// misbehave, for tests and benchmarks of what a run does when its metrics
// server fails. It answers every instant query with one series of value 1
// (the query "1" with a scalar, as a real server does); SetQuiet makes a
// query answer no series, SetValue another value (NaN, 1e308). Modes (SetMode): "ok"; "hang" holds every
// request until the client gives up; "slow" answers after SlowBy; "dead"
// closes the server (connections refused from then on).
type FakePrometheus struct {
	// URL is the server's base URL.
	URL string
	// SlowBy is how long a "slow" server takes to answer (default 1.5 s).
	SlowBy time.Duration

	srv     *httptest.Server
	mode    atomic.Value // string
	quiet   sync.Map     // query → bool
	values  sync.Map     // query → the value it answers, as Prometheus writes it
	queries atomic.Int64
}

// StartFakePrometheus starts a FakePrometheus in mode "ok"; Stop ends it.
func StartFakePrometheus() *FakePrometheus {
	f := &FakePrometheus{SlowBy: 1500 * time.Millisecond}
	f.mode.Store("ok")
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	f.URL = f.srv.URL
	return f
}

// SetMode switches the server to "ok", "hang", "slow" or "dead".
func (f *FakePrometheus) SetMode(m string) {
	f.mode.Store(m)
	if m == "dead" {
		f.srv.CloseClientConnections()
		_ = f.srv.Listener.Close()
	}
}

// SetQuiet makes query answer no series (quiet) or one (not).
func (f *FakePrometheus) SetQuiet(query string, quiet bool) { f.quiet.Store(query, quiet) }

// SetValue makes query answer one series of value v, written as
// Prometheus writes values: "1", "NaN", "+Inf", "1e308" (the default "1").
func (f *FakePrometheus) SetValue(query, v string) { f.values.Store(query, v) }

// Queries is how many queries the server received.
func (f *FakePrometheus) Queries() int64 { return f.queries.Load() }

// Stop ends the server.
func (f *FakePrometheus) Stop() { f.srv.Close() }

func (f *FakePrometheus) serve(w http.ResponseWriter, r *http.Request) {
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
		case <-time.After(f.SlowBy):
		case <-r.Context().Done():
			return
		}
	}
	now := float64(time.Now().UnixNano()) / 1e9
	w.Header().Set("Content-Type", "application/json")
	quiet, _ := f.quiet.Load(q)
	switch {
	case q == "1":
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"scalar","result":[%.3f,"1"]}}`, now)
	case quiet == true:
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[]}}`)
	default:
		v := "1"
		if s, ok := f.values.Load(q); ok {
			v = s.(string)
		}
		fmt.Fprintf(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"svc","instance":"x"},"value":[%.3f,%q]}]}}`, now, v)
	}
}

// RecordingTarget is a service on loopback that answers 200 at once and
// records when its first and last requests came.
type RecordingTarget struct {
	// URL is the server's base URL.
	URL string
	// Started is closed at the first request.
	Started <-chan struct{}

	srv         *httptest.Server
	first, last atomic.Int64 // unix ns
	started     chan struct{}
	once        sync.Once
}

// StartRecordingTarget starts a RecordingTarget; Stop ends it.
func StartRecordingTarget() *RecordingTarget {
	tg := &RecordingTarget{started: make(chan struct{})}
	tg.Started = tg.started
	tg.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		tg.once.Do(func() { tg.first.Store(now); close(tg.started) })
		tg.last.Store(now)
	}))
	tg.URL = tg.srv.URL
	return tg
}

// First and Last are when the first and the latest request came (zero
// time: none yet).
func (tg *RecordingTarget) First() time.Time { return unixOrZero(tg.first.Load()) }

// Last: see First.
func (tg *RecordingTarget) Last() time.Time { return unixOrZero(tg.last.Load()) }

// Stop ends the server.
func (tg *RecordingTarget) Stop() { tg.srv.Close() }

func unixOrZero(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// SmallScenario is the HCL of a small, bounded run against target with its
// metrics read from the Prometheus at prom: 50 first attempts/s (a 2 s
// spike at twice that), one retry, a 500 ms client timeout, a 5 s query
// timeout, a long observe; for tests and benchmarks of how a run stops.
// extra is appended (stop_when blocks, a gate).
func SmallScenario(target, prom, extra string) string {
	return fmt.Sprintf(`
scenario "brakes" {}
target {
  url         = "%[1]s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout = "500ms"
  retry { max_retries = 1 }
}
service { capacity = 200 }
load {
  baseline = 50
  warmup   = "2s"
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
%[3]s
`, target, prom, extra)
}
