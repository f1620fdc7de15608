package runner

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// --metrics-addr :PORT binds loopback, not every interface (issue 32,
// finding 12); a loopback host binds quietly.
func TestMetricsAddrWithoutHostBindsLoopback(t *testing.T) {
	for _, addr := range []string{":0", "127.0.0.1:0", "localhost:0"} {
		var warned []string
		warn := func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }
		bound, stop, err := serveMetrics(addr, http.NotFoundHandler(), warn)
		if err != nil {
			t.Fatalf("%s: %v", addr, err)
		}
		stop()
		host, _, err := net.SplitHostPort(bound)
		if err != nil {
			t.Fatal(err)
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			t.Errorf("--metrics-addr %s bound %s, want a loopback address", addr, bound)
		}
		if len(warned) != 0 {
			t.Errorf("--metrics-addr %s warned: %q", addr, warned)
		}
	}
}

// An explicit host that is not loopback is served as asked, with a warning.
func TestMetricsAddrNotLoopbackWarns(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:9464", "192.0.2.1:9464", "[::]:9464"} {
		var warned []string
		warn := func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }
		got, err := metricsListenAddr(addr, warn)
		if err != nil || got != addr {
			t.Errorf("%s: got %q, %v; want it kept", addr, got, err)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "not loopback") {
			t.Errorf("%s: warnings %q, want one saying it is not loopback", addr, warned)
		}
	}
	if _, err := metricsListenAddr("9464", func(string, ...any) {}); err == nil {
		t.Error("an address without a port was accepted")
	}
}
