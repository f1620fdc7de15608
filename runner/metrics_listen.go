package runner

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/trigger-test/trigger/runner/prom"
)

// metricsListenAddr is the address --metrics-addr binds: one without a host
// (":9464") binds loopback, 127.0.0.1, not every interface. A host that is
// not loopback is kept, as the operator asked, but warn says so: anyone who
// reaches that interface can read the run's metrics.
func metricsListenAddr(addr string, warn func(format string, args ...any)) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--metrics-addr %q: want HOST:PORT or :PORT: %v", addr, err)
	}
	if host == "" {
		return net.JoinHostPort("127.0.0.1", port), nil
	}
	if prom.IsLoopbackHost(host) {
		return addr, nil
	}
	warn("warning: --metrics-addr %s is not loopback: the driver's metrics are served to anyone who reaches that interface (give 127.0.0.1:%s to keep them on this machine)", addr, port)
	return addr, nil
}

// serveMetrics serves the driver's collectors at addr (loopback when addr
// names no host, see metricsListenAddr) for an outside Prometheus. It
// returns the address bound and a function that stops the server within a
// second.
func serveMetrics(addr string, h http.Handler, warn func(format string, args ...any)) (string, func(), error) {
	addr, err := metricsListenAddr(addr, warn)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	return ln.Addr().String(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}
