package staging

import (
	"strings"
	"testing"
	"time"
)

func TestDefaultMaxConn(t *testing.T) {
	cases := []struct {
		hard  uint64
		known bool
		want  int
	}{
		{0, false, DefaultMaxConn},
		{20_000, true, DefaultMaxConn},
		{1 << 20, true, DefaultMaxConn},
		{2*DefaultMaxConn + fdReserve, true, DefaultMaxConn},
		{4096, true, (4096 - fdReserve) / 2},
		{1024, true, (1024 - fdReserve) / 2},
		{fdReserve, true, 1},
	}
	for _, c := range cases {
		if got := defaultMaxConn(c.hard, c.known); got != c.want {
			t.Errorf("defaultMaxConn(%d, %v) = %d, want %d", c.hard, c.known, got, c.want)
		}
	}
}

func TestHAProxyRender(t *testing.T) {
	base := HAProxyConfig{Upstream: "127.0.0.1:8080", TryTimeout: 300 * time.Millisecond, Retries: 2, MaxConn: 4000}
	cases := []struct {
		name    string
		cfg     HAProxyConfig
		want    []string
		notWant []string
	}{
		{"defaults", base, []string{
			"    maxconn 4000\n",
			"    mode http\n",
			"    timeout connect 1000ms\n",
			"    timeout client 30000ms\n",
			"    timeout server 300ms\n",
			"    retries 2\n",
			"    retry-on conn-failure empty-response response-timeout\n",
			"    option http-buffer-request\n",
			"    bind 127.0.0.1:9999\n",
			"    monitor-uri " + ReadyPath + "\n",
			"    server upstream 127.0.0.1:8080\n",
		}, []string{"abortonclose", "redispatch", "httplog", "log ", "prometheus-exporter", "timeout queue", "backlog", "httpclose", "http-server-close"}},
		{"exporter", func() HAProxyConfig {
			c := base
			c.Exporter = true
			return c
		}(), []string{"frontend exporter\n    bind 127.0.0.1:9998\n    http-request use-service prometheus-exporter if { path /metrics }\n"}, nil},
		{"options", func() HAProxyConfig {
			c := base
			c.Retries, c.RetryOn, c.AbortOnClose, c.LogRequests = 0, "conn-failure 503", true, true
			c.TryTimeout, c.ConnectTimeout, c.ClientTimeout = 1500*time.Microsecond, 2*time.Second, time.Second
			return c
		}(), []string{
			"    retries 0\n", "    retry-on conn-failure 503\n", "    option abortonclose\n",
			"    log stderr format raw local0\n", "    option httplog\n",
			"    timeout server 2ms\n", // rounded up
			"    timeout connect 2000ms\n", "    timeout client 1000ms\n",
		}, nil},
		{"queue", func() HAProxyConfig {
			c := base
			c.Upstreams, c.ServerMaxConn, c.QueueTimeout = []string{"127.0.0.1:8081", "127.0.0.1:8082"}, 1, 500*time.Millisecond
			c.FrontendMaxConn, c.Backlog, c.CloseEach, c.ServerClose = 20, 512, true, true
			return c
		}(), []string{
			"    timeout queue 500ms\n",
			"    option http-server-close\n",
			"    bind 127.0.0.1:9999 backlog 512\n    maxconn 20\n    option httpclose\n",
			"    server upstream 127.0.0.1:8080 maxconn 1\n    server upstream2 127.0.0.1:8081 maxconn 1\n    server upstream3 127.0.0.1:8082 maxconn 1\n",
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := c.cfg.withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			got := cfg.render("127.0.0.1:9999", "127.0.0.1:9998")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("no %q in\n%s", w, got)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q in\n%s", w, got)
				}
			}
		})
	}
}

func TestCheckLoopback(t *testing.T) {
	cases := []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", true},
		{"127.1.2.3:80", true},
		{"[::1]:80", true},
		{"localhost:80", true},
		{"LOCALHOST:80", true},
		{"10.0.0.1:80", false},
		{"example.com:80", false},
		{"127.0.0.1", false},
		{"127.0.0.1:", false},
		{"", false},
	}
	for _, c := range cases {
		if err := checkLoopback("x", c.addr); (err == nil) != c.ok {
			t.Errorf("checkLoopback(%q) = %v, want ok %v", c.addr, err, c.ok)
		}
	}
}
