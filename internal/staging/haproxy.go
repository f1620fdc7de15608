package staging

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// HAProxy is a running haproxy (a child process, "haproxy -f CFG -db") in
// front of one upstream. Stop it with Stop; the end of the context given
// to StartHAProxy also ends it, and Stop must still be called to wait for
// it and remove its directory.
type HAProxy struct {
	// URL is the frontend's base URL, "http://127.0.0.1:port".
	URL string
	// Addr is the frontend's address, "127.0.0.1:port".
	Addr string
	// ExporterAddr serves haproxy's Prometheus exporter at /metrics when
	// Config.Exporter is set; "" otherwise.
	ExporterAddr string
	// Config is the configuration in force, defaults applied.
	Config HAProxyConfig

	dir, cfgPath string
	ownDir       bool
	p            *proc
}

// haproxyGrace is how long haproxy may take to exit after SIGTERM (it
// stops at once on SIGTERM) before it is killed.
const haproxyGrace = 5 * time.Second

// bindAttempts is how many free ports a Start function tries when the
// port from FreePort was taken before the program bound it.
const bindAttempts = 3

// StartHAProxy writes haproxy.cfg for cfg into its directory, runs haproxy
// on a free loopback port and returns once the frontend answers ReadyPath
// (which haproxy answers itself: the upstream sees no request). The
// upstream need not be up yet.
func StartHAProxy(ctx context.Context, cfg HAProxyConfig) (*HAProxy, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	bin, err := findBinary(cfg.Binary, "haproxy")
	if err != nil {
		return nil, err
	}
	cfg.Binary = bin
	h := &HAProxy{Config: cfg, dir: cfg.Dir}
	if h.dir == "" {
		if h.dir, err = os.MkdirTemp("", "staging-haproxy-"); err != nil {
			return nil, fmt.Errorf("staging: haproxy dir: %w", err)
		}
		h.ownDir = true
	}
	h.cfgPath = filepath.Join(h.dir, "haproxy.cfg")
	for attempt := 1; ; attempt++ {
		err = h.start(ctx)
		if err == nil {
			return h, nil
		}
		conflict := h.p != nil && h.p.bindConflict()
		if h.p != nil {
			_ = h.p.stop()
		}
		if !conflict || attempt == bindAttempts || ctx.Err() != nil {
			h.removeDir()
			return nil, err
		}
		_ = os.Remove(filepath.Join(h.dir, "haproxy.log"))
	}
}

// start runs haproxy once on a new free port and waits until it is ready.
func (h *HAProxy) start(ctx context.Context) error {
	h.p = nil
	addr, err := LoopbackAddr()
	if err != nil {
		return err
	}
	if h.Config.Exporter {
		if h.ExporterAddr, err = LoopbackAddr(); err != nil {
			return err
		}
	}
	if err := os.WriteFile(h.cfgPath, []byte(h.Config.render(addr, h.ExporterAddr)), 0o644); err != nil {
		return fmt.Errorf("staging: haproxy config: %w", err)
	}
	h.Addr, h.URL = addr, "http://"+addr
	if h.p, err = startProc(ctx, "haproxy", h.Config.Binary, []string{"-f", h.cfgPath, "-db"}, h.dir, haproxyGrace); err != nil {
		return err
	}
	client, closeIdle := newClient()
	defer closeIdle()
	return h.p.waitReady(ctx, h.Config.StartTimeout, func(ctx context.Context) error {
		return getOK(ctx, client, h.URL+ReadyPath)
	})
}

// Dir returns the directory of haproxy.cfg and haproxy.log.
func (h *HAProxy) Dir() string { return h.dir }

// Log returns the end of haproxy's output (warnings and alerts), at most
// 4 KiB. Valid until Stop removes a temporary directory.
func (h *HAProxy) Log() string { return h.p.tail() }

// Stop ends haproxy (SIGTERM, SIGKILL after 5 s), waits for it, and
// removes its directory if StartHAProxy created it. It returns an error if
// haproxy had ended on its own. Idempotent.
func (h *HAProxy) Stop() error {
	err := h.p.stop()
	h.removeDir()
	return err
}

func (h *HAProxy) removeDir() {
	if h.ownDir {
		_ = os.RemoveAll(h.dir)
	}
}

// newClient returns an HTTP client of its own (so no idle connection
// outlives its user) and the function that closes its idle connections.
func newClient() (*http.Client, func()) {
	tr := &http.Transport{DisableKeepAlives: true}
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}, tr.CloseIdleConnections
}

// getOK returns nil if GET url answers 200.
func getOK(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New("GET " + url + ": " + resp.Status)
	}
	return nil
}

// FrontendCounts is what haproxy's exporter says of the frontend "fe".
type FrontendCounts struct {
	// Connections is the connections haproxy accepted from the kernel's
	// backlog; Requests the HTTP requests it received on them.
	Connections, Requests float64
}

// FrontendCounts reads the frontend's counters from haproxy's exporter
// (Config.Exporter must be set).
func (h *HAProxy) FrontendCounts(ctx context.Context) (FrontendCounts, error) {
	var fc FrontendCounts
	if h.ExporterAddr == "" {
		return fc, errors.New("staging: haproxy has no exporter")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+h.ExporterAddr+"/metrics", nil)
	if err != nil {
		return fc, err
	}
	client, closeIdle := newClient()
	defer closeIdle()
	resp, err := client.Do(req)
	if err != nil {
		return fc, fmt.Errorf("staging: haproxy exporter: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return fc, fmt.Errorf("staging: haproxy exporter: %w", err)
	}
	found := 0
	for _, line := range strings.Split(string(body), "\n") {
		var dst *float64
		switch {
		case strings.HasPrefix(line, `haproxy_frontend_connections_total{proxy="fe"} `):
			dst = &fc.Connections
		case strings.HasPrefix(line, `haproxy_frontend_http_requests_total{proxy="fe"} `):
			dst = &fc.Requests
		default:
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(line[strings.LastIndexByte(line, ' ')+1:]), 64)
		if err != nil {
			return fc, fmt.Errorf("staging: haproxy exporter: %q: %w", line, err)
		}
		*dst = v
		found++
	}
	if found != 2 {
		return fc, errors.New("staging: haproxy exporter: no frontend fe counters")
	}
	return fc, nil
}
