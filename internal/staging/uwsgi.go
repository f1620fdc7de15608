package staging

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// RequireUWSGIEnv names the variable that makes a missing uwsgi (or its
// python3 plugin, or python3-prometheus-client) an error.
const RequireUWSGIEnv = "TRIGGER_REQUIRE_UWSGI"

// LookUWSGI is LookBinary for uWSGI with what its application needs: the
// python3 plugin (Debian's uwsgi-plugin-python3) and the system Python's
// prometheus_client (python3-prometheus-client).
func LookUWSGI(requireEnv string) (path, skipReason string, err error) {
	path, skipReason, err = LookBinary("uwsgi", requireEnv)
	if path == "" {
		return path, skipReason, err
	}
	var missing []string
	if _, err := os.Stat("/usr/lib/uwsgi/plugins/python3_plugin.so"); err != nil {
		missing = append(missing, "uwsgi-plugin-python3")
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import prometheus_client").Run(); err != nil {
		missing = append(missing, "python3-prometheus-client")
	}
	if len(missing) == 0 {
		return path, "", nil
	}
	why := "uwsgi is installed, but not " + strings.Join(missing, " and ") + ": install Debian's packages to run this"
	if requireEnv != "" && os.Getenv(requireEnv) != "" {
		return "", "", errors.New("staging: " + requireEnv + " is set and " + why)
	}
	return "", why, nil
}

// Defaults of UWSGIConfig.
const (
	// DefaultServiceTime is how long the application works on a request.
	DefaultServiceTime = 10 * time.Millisecond
	// DefaultListen is the accept backlog asked for: 40 s of work at 10 ms
	// a request, more than any test's queue. It is lowered to the kernel's
	// net.core.somaxconn, which caps it.
	DefaultListen = 4096
	// DefaultUWSGIStartTimeout bounds the wait for the application's first answer.
	DefaultUWSGIStartTimeout = 30 * time.Second
	// uwsgiGrace is how long uWSGI may take to exit after SIGTERM.
	uwsgiGrace = 5 * time.Second
)

//go:embed uwsgi_app.py
var uwsgiApp []byte

// UWSGIConfig configures StartUWSGI: uWSGI (Debian's uwsgi with
// uwsgi-plugin-python3) serving uwsgi_app.py over HTTP with one worker
// process of one thread, a master process for its stats server, and
// prometheus_client's counters app_requests_total (started) and
// app_served_total (finished) on a port of their own.
type UWSGIConfig struct {
	// Binary is the uwsgi program; "" = found by LookBinary("uwsgi", "").
	Binary string
	// ServiceTime is the work per request; 0 = DefaultServiceTime.
	ServiceTime time.Duration
	// Listen is the accept backlog; 0 = DefaultListen (both capped at
	// somaxconn).
	Listen int
	// Dir holds app.py and uwsgi.log; "" = a new temporary directory,
	// removed by Stop.
	Dir string
	// StartTimeout bounds the wait for the first answer; 0 =
	// DefaultUWSGIStartTimeout.
	StartTimeout time.Duration
}

// UWSGI is a running uWSGI (a child process). Stop it with Stop; the end
// of the context given to StartUWSGI also ends it.
type UWSGI struct {
	// URL is the application's base URL, "http://127.0.0.1:port".
	URL string
	// Addr is the application's address; MetricsAddr serves its
	// prometheus_client counters at /metrics; StatsAddr uWSGI's stats
	// (JSON) at /.
	Addr, MetricsAddr, StatsAddr string
	// Config is the configuration in force, defaults applied.
	Config UWSGIConfig

	dir    string
	ownDir bool
	p      *proc
	client *http.Client
	close  func()
}

func (c UWSGIConfig) withDefaults() (UWSGIConfig, error) {
	if c.ServiceTime == 0 {
		c.ServiceTime = DefaultServiceTime
	}
	if c.ServiceTime < 0 {
		return c, fmt.Errorf("staging: uwsgi ServiceTime %s: want > 0", c.ServiceTime)
	}
	if c.Listen == 0 {
		c.Listen = DefaultListen
	}
	if c.Listen < 1 {
		return c, fmt.Errorf("staging: uwsgi Listen %d: want 1 or more", c.Listen)
	}
	if max, ok := somaxconn(); ok && c.Listen > max {
		// uWSGI refuses to start with a backlog above somaxconn.
		c.Listen = max
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultUWSGIStartTimeout
	}
	return c, nil
}

// somaxconn reads the kernel's cap on accept backlogs (Linux).
func somaxconn() (int, bool) {
	b, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	return n, err == nil && n > 0
}

// StartUWSGI writes the application into its directory, runs uWSGI on
// three free loopback ports and returns once the application has answered
// one request (counted: app_requests_total starts at 1) and its metrics
// port answers.
func StartUWSGI(ctx context.Context, cfg UWSGIConfig) (*UWSGI, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Binary, err = findBinary(cfg.Binary, "uwsgi"); err != nil {
		return nil, err
	}
	u := &UWSGI{Config: cfg, dir: cfg.Dir}
	if u.dir == "" {
		if u.dir, err = os.MkdirTemp("", "staging-uwsgi-"); err != nil {
			return nil, fmt.Errorf("staging: uwsgi dir: %w", err)
		}
		u.ownDir = true
	}
	if err := os.WriteFile(filepath.Join(u.dir, "app.py"), uwsgiApp, 0o644); err != nil {
		u.removeDir()
		return nil, fmt.Errorf("staging: uwsgi app: %w", err)
	}
	u.client, u.close = newClient()
	for attempt := 1; ; attempt++ {
		if err = u.pickPorts(); err == nil {
			err = u.start(ctx)
		}
		if err == nil {
			return u, nil
		}
		conflict := u.p != nil && u.p.bindConflict()
		if u.p != nil {
			_ = u.p.stop()
		}
		if !conflict || attempt == bindAttempts || ctx.Err() != nil {
			u.close()
			u.removeDir()
			return nil, err
		}
		_ = os.Remove(filepath.Join(u.dir, "uwsgi.log"))
	}
}

// pickPorts takes three free loopback ports.
func (u *UWSGI) pickPorts() error {
	var addrs [3]string
	for i := range addrs {
		a, err := LoopbackAddr()
		if err != nil {
			return err
		}
		addrs[i] = a
	}
	u.Addr, u.MetricsAddr, u.StatsAddr = addrs[0], addrs[1], addrs[2]
	u.URL = "http://" + u.Addr
	return nil
}

// start runs uWSGI on the chosen ports and waits until it is ready.
//
// --lazy-apps loads the application in the worker, not in the master
// before the fork: prometheus_client's counters and its exporter thread
// must live in the process that handles the requests. --die-on-term makes
// SIGTERM end uWSGI (uWSGI 2.0 reloads on it otherwise).
func (u *UWSGI) start(ctx context.Context) error {
	_, metricsPort, _ := net.SplitHostPort(u.MetricsAddr)
	c := u.Config
	args := []string{
		"--plugin", "python3",
		"--http-socket", u.Addr,
		"--wsgi-file", filepath.Join(u.dir, "app.py"),
		"--master", "--processes", "1", "--threads", "1",
		"--enable-threads", "--lazy-apps", "--need-app", "--die-on-term",
		"--listen", strconv.Itoa(c.Listen),
		"--stats", u.StatsAddr, "--stats-http",
		"--disable-logging",
		"--env", "STAGING_APP_METRICS_PORT=" + metricsPort,
		"--env", "STAGING_APP_SERVICE_S=" + strconv.FormatFloat(c.ServiceTime.Seconds(), 'f', -1, 64),
	}
	var err error
	if u.p, err = startProc(ctx, "uwsgi", c.Binary, args, u.dir, uwsgiGrace); err != nil {
		return err
	}
	return u.p.waitReady(ctx, c.StartTimeout, func(ctx context.Context) error {
		if err := getOK(ctx, u.client, u.URL+"/"); err != nil {
			return err
		}
		return getOK(ctx, u.client, "http://"+u.MetricsAddr+"/metrics")
	})
}

// Stats is what uWSGI's stats server says of the service.
type Stats struct {
	// Handled is the requests its workers have handled.
	Handled float64
	// Queued is the connections waiting in the accept backlog.
	Queued float64
}

// Arrivals is every request that has reached the service: handled, or
// waiting in the backlog. Its increase over a window is the truth of what
// arrived at the service then, whatever the application's counters see.
func (s Stats) Arrivals() float64 { return s.Handled + s.Queued }

// Stats reads uWSGI's stats server.
func (u *UWSGI) Stats(ctx context.Context) (Stats, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+u.StatsAddr+"/", nil)
	if err != nil {
		return Stats{}, err
	}
	resp, err := u.client.Do(req)
	if err != nil {
		return Stats{}, fmt.Errorf("staging: uwsgi stats: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return Stats{}, fmt.Errorf("staging: uwsgi stats: %w", err)
	}
	st, err := decodeUWSGIStats(body)
	if err != nil {
		return st, err
	}
	// uWSGI's master refreshes listen_queue once a second; the kernel's
	// own count is exact where it can be read.
	if q, ok := acceptQueue(u.Addr); ok {
		st.Queued = q
	}
	return st, nil
}

// AcceptQueue is the number of connections waiting to be accepted on the
// listening IPv4 socket at addr ("127.0.0.1:port"), read from the kernel
// (Linux's /proc/net/tcp); false where it cannot be read.
func AcceptQueue(addr string) (float64, bool) { return acceptQueue(addr) }

// acceptQueue reads the accept backlog of the listening IPv4 socket at
// addr from /proc/net/tcp, where a listening socket's rx_queue is the
// number of connections waiting to be accepted (Linux).
func acceptQueue(addr string) (float64, bool) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, false
	}
	ip, p := net.ParseIP(host).To4(), 0
	if p, err = strconv.Atoi(port); err != nil || ip == nil {
		return 0, false
	}
	// /proc/net/tcp prints the address as the 32-bit value in host order
	// (little-endian here) in hex, then the port in hex.
	local := fmt.Sprintf("%02X%02X%02X%02X:%04X", ip[3], ip[2], ip[1], ip[0], p)
	b, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[1] != local || f[3] != "0A" { // 0A: LISTEN
			continue
		}
		_, rx, ok := strings.Cut(f[4], ":")
		n, err := strconv.ParseUint(rx, 16, 64)
		if !ok || err != nil {
			return 0, false
		}
		return float64(n), true
	}
	return 0, false
}

// decodeUWSGIStats reads the requests handled by every worker and the
// backlog of every socket from a stats answer.
func decodeUWSGIStats(body []byte) (Stats, error) {
	var a struct {
		ListenQueue *float64 `json:"listen_queue"`
		Workers     []struct {
			Requests float64 `json:"requests"`
		} `json:"workers"`
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return Stats{}, fmt.Errorf("staging: uwsgi stats: %w", err)
	}
	if a.ListenQueue == nil || len(a.Workers) == 0 {
		return Stats{}, errors.New("staging: uwsgi stats: no listen_queue or no workers")
	}
	s := Stats{Queued: *a.ListenQueue}
	for _, w := range a.Workers {
		s.Handled += w.Requests
	}
	return s, nil
}

// Dir returns the directory of app.py and uwsgi.log.
func (u *UWSGI) Dir() string { return u.dir }

// Log returns the end of uWSGI's output, at most 4 KiB.
func (u *UWSGI) Log() string { return u.p.tail() }

// Restart stops uWSGI and starts it again on the same ports, as a deploy
// restarts a service: its counters start from zero.
func (u *UWSGI) Restart(ctx context.Context) error {
	if err := u.p.stop(); err != nil {
		return err
	}
	return u.start(ctx)
}

// Stop ends uWSGI, waits for it, and removes its directory if StartUWSGI
// created it. It returns an error if uWSGI had ended on its own. Idempotent.
func (u *UWSGI) Stop() error {
	err := u.p.stop()
	u.close()
	u.removeDir()
	return err
}

func (u *UWSGI) removeDir() {
	if u.ownDir {
		_ = os.RemoveAll(u.dir)
	}
}
