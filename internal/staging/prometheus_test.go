package staging_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/trigger-test/trigger/internal/staging"
)

// A real Prometheus scraping a tiny exporter every second has its counter
// within a bounded wait.
func TestPrometheusScrapes(t *testing.T) {
	t.Parallel()
	bin := need(t, "prometheus", staging.RequirePrometheusEnv)
	reg := prometheus.NewRegistry()
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: "staging_test_events_total", Help: "Events, for the test."})
	reg.MustRegister(c)
	c.Add(42)
	exporter := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(exporter.Close)

	p, err := staging.StartPrometheus(t.Context(), staging.PrometheusConfig{Binary: bin, ScrapeInterval: time.Second,
		Jobs: map[string]string{"tiny": strings.TrimPrefix(exporter.URL, "http://")}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("prometheus log:\n%s", p.Log())
		}
		if err := p.Stop(); err != nil {
			t.Error(err)
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	got, err := p.WaitForSeries(ctx, `staging_test_events_total{job="tiny"}`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Value != 42 || got[0].Labels["instance"] != strings.TrimPrefix(exporter.URL, "http://") {
		t.Errorf("got %+v; want one series of value 42 from the exporter", got)
	}
	up, err := p.Query(ctx, `up{job="tiny"}`)
	if err != nil || len(up) != 1 || up[0].Value != 1 {
		t.Errorf("up: %+v, %v; want one series of value 1", up, err)
	}
	if _, err := p.Query(ctx, `this is not promql`); err == nil {
		t.Error("a malformed query returned no error")
	}
}

func TestPrometheusConfigErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  staging.PrometheusConfig
	}{
		{"remote job", staging.PrometheusConfig{Jobs: map[string]string{"x": "192.0.2.1:9090"}}},
		{"job without port", staging.PrometheusConfig{Jobs: map[string]string{"x": "127.0.0.1"}}},
		{"empty job name", staging.PrometheusConfig{Jobs: map[string]string{"": "127.0.0.1:1"}}},
		{"sub-millisecond interval", staging.PrometheusConfig{ScrapeInterval: 1500 * time.Microsecond}},
		{"missing binary", staging.PrometheusConfig{Binary: "/nonexistent/prometheus"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := staging.StartPrometheus(context.Background(), c.cfg)
			if err == nil {
				_ = p.Stop()
				t.Fatal("started; want an error")
			}
			t.Log(err)
		})
	}
}
