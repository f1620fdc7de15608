package staging

import (
	"math"
	"testing"
	"time"
)

func TestPrometheusRender(t *testing.T) {
	cases := []struct {
		name string
		cfg  PrometheusConfig
		want string
	}{
		{"defaults", PrometheusConfig{Jobs: map[string]string{"svc": "127.0.0.1:1", "drv": "127.0.0.1:2"}}, `# Written by internal/staging.
global:
  scrape_interval: 1000ms
  scrape_timeout: 1000ms
  evaluation_interval: 1000ms
scrape_configs:
  - job_name: "drv"
    static_configs:
      - targets: ["127.0.0.1:2"]
  - job_name: "svc"
    static_configs:
      - targets: ["127.0.0.1:1"]
`},
		{"slow scrapes cap the timeout", PrometheusConfig{ScrapeInterval: 30 * time.Second, EvaluationInterval: 500 * time.Millisecond}, `# Written by internal/staging.
global:
  scrape_interval: 30000ms
  scrape_timeout: 10000ms
  evaluation_interval: 500ms
scrape_configs:
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.cfg.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.render(); got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestDecodeQuery(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		want    []Sample
		wantErr bool
	}{
		{"vector", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"a"},"value":[1700000000.5,"42"]}]}}`,
			[]Sample{{Labels: map[string]string{"job": "a"}, At: time.Unix(1700000000, 5e8), Value: 42}}, false},
		{"empty vector", `{"status":"success","data":{"resultType":"vector","result":[]}}`, []Sample{}, false},
		{"scalar", `{"status":"success","data":{"resultType":"scalar","result":[1700000000,"NaN"]}}`,
			[]Sample{{At: time.Unix(1700000000, 0), Value: math.NaN()}}, false},
		{"error", `{"status":"error","errorType":"bad_data","error":"parse error"}`, nil, true},
		{"matrix", `{"status":"success","data":{"resultType":"matrix","result":[]}}`, nil, true},
		{"not json", `<html>`, nil, true},
		{"bad value", `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"x"]}]}}`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := decodeQuery("q", 200, []byte(c.body))
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				g, w := got[i], c.want[i]
				sameValue := g.Value == w.Value || (math.IsNaN(g.Value) && math.IsNaN(w.Value))
				if !sameValue || !g.At.Equal(w.At) || len(g.Labels) != len(w.Labels) || g.Labels["job"] != w.Labels["job"] {
					t.Errorf("sample %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}
