package staging

import (
	"context"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// SystemPython is the Python that has Debian's python3-prometheus-client
// (a python3 on PATH may be another one, without it).
const SystemPython = "/usr/bin/python3"

// LookPyServer says whether StartPyServer can run: SystemPython with
// prometheus_client. It returns a reason to skip when it cannot, or an
// error when requireEnv is set (RequireUWSGIEnv: CI installs
// python3-prometheus-client with uWSGI).
func LookPyServer(requireEnv string) (skipReason string, err error) {
	if err := exec.Command(SystemPython, "-c", "import prometheus_client, http.server").Run(); err != nil {
		why := SystemPython + " cannot import prometheus_client (" + err.Error() + "): install Debian's python3-prometheus-client to run this"
		if requireEnv != "" && os.Getenv(requireEnv) != "" {
			return "", errors.New("staging: " + requireEnv + " is set and " + why)
		}
		return why, nil
	}
	return "", nil
}

//go:embed pyserver.py
var pyServer []byte

// Defaults of PyServerConfig.
const (
	// DefaultPyBacklog is the server's listen backlog: its main thread
	// accepts under the GIL, and Python's own default of 5 would overflow
	// at the first burst.
	DefaultPyBacklog = 1024
	// DefaultPyStartTimeout bounds the wait for the first answer.
	DefaultPyStartTimeout = 30 * time.Second
	pyGrace               = 5 * time.Second
)

// PyServerConfig configures StartPyServer: pyserver.py run by
// SystemPython, Python's ThreadingHTTPServer (a thread per connection,
// no limit) whose requests sleep Floor, then work Work holding the GIL in
// 1 ms quanta (processor sharing, capacity 1/Work at most, without using
// the CPU: see pyserver.py), and, with Scan > 0, scan the registry of
// requests in flight under a lock, Scan of work an entry (work that grows
// with the number in flight).
type PyServerConfig struct {
	Floor, Work, Scan time.Duration
	// Backlog is the listen backlog; 0 = DefaultPyBacklog (capped at
	// somaxconn).
	Backlog int
	// Dir holds the script, its counts file and its log; "" = a new
	// temporary directory, removed by Stop.
	Dir string
	// StartTimeout bounds the wait for the first answer; 0 =
	// DefaultPyStartTimeout.
	StartTimeout time.Duration
}

// PyServer is a running pyserver.py (a child process). Stop it with Stop;
// the end of the context given to StartPyServer also ends it.
type PyServer struct {
	// URL is the service's base URL; Addr its address; MetricsAddr serves
	// its prometheus_client metrics at /metrics.
	URL, Addr, MetricsAddr string
	Config                 PyServerConfig

	dir    string
	ownDir bool
	counts string
	p      *proc
}

// StartPyServer writes the script into its directory, runs it on two free
// loopback ports and returns once the service and its metrics answer.
func StartPyServer(ctx context.Context, cfg PyServerConfig) (*PyServer, error) {
	if cfg.Floor < 0 || cfg.Work < 0 || cfg.Scan < 0 || cfg.Backlog < 0 {
		return nil, fmt.Errorf("staging: pyserver: Floor %s, Work %s, Scan %s, Backlog %d: want 0 or more", cfg.Floor, cfg.Work, cfg.Scan, cfg.Backlog)
	}
	if cfg.Backlog == 0 {
		cfg.Backlog = DefaultPyBacklog
	}
	if max, ok := somaxconn(); ok && cfg.Backlog > max {
		cfg.Backlog = max
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultPyStartTimeout
	}
	s := &PyServer{Config: cfg, dir: cfg.Dir}
	var err error
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "staging-pyserver-"); err != nil {
			return nil, fmt.Errorf("staging: pyserver dir: %w", err)
		}
		s.ownDir = true
	}
	s.counts = filepath.Join(s.dir, "counts")
	if err := os.WriteFile(filepath.Join(s.dir, "pyserver.py"), pyServer, 0o644); err != nil {
		s.removeDir()
		return nil, fmt.Errorf("staging: pyserver script: %w", err)
	}
	for attempt := 1; ; attempt++ {
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		conflict := s.p != nil && s.p.bindConflict()
		if s.p != nil {
			_ = s.p.stop()
		}
		if !conflict || attempt == bindAttempts || ctx.Err() != nil {
			s.removeDir()
			return nil, err
		}
		_ = os.Remove(filepath.Join(s.dir, "pyserver.log"))
	}
}

// start runs the script once on new free ports and waits until it is ready.
func (s *PyServer) start(ctx context.Context) error {
	s.p = nil
	var err error
	if s.Addr, err = LoopbackAddr(); err != nil {
		return err
	}
	if s.MetricsAddr, err = LoopbackAddr(); err != nil {
		return err
	}
	s.URL = "http://" + s.Addr
	if err := os.WriteFile(s.counts, make([]byte, 16), 0o644); err != nil {
		return fmt.Errorf("staging: pyserver counts: %w", err)
	}
	_, port, _ := net.SplitHostPort(s.Addr)
	_, metricsPort, _ := net.SplitHostPort(s.MetricsAddr)
	c := s.Config
	// The environment goes in as arguments of env(1), so that the child
	// has the caller's environment and these on top of it.
	args := []string{
		"STAGING_PY_PORT=" + port,
		"STAGING_PY_METRICS_PORT=" + metricsPort,
		"STAGING_PY_COUNTS=" + s.counts,
		"STAGING_PY_FLOOR_S=" + strconv.FormatFloat(c.Floor.Seconds(), 'f', -1, 64),
		"STAGING_PY_WORK_S=" + strconv.FormatFloat(c.Work.Seconds(), 'f', -1, 64),
		"STAGING_PY_SCAN_S=" + strconv.FormatFloat(c.Scan.Seconds(), 'f', -1, 64),
		"STAGING_PY_BACKLOG=" + strconv.Itoa(c.Backlog),
		SystemPython, "-u", filepath.Join(s.dir, "pyserver.py"),
	}
	if s.p, err = startProc(ctx, "pyserver", "/usr/bin/env", args, s.dir, pyGrace); err != nil {
		return err
	}
	client, closeIdle := newClient()
	defer closeIdle()
	return s.p.waitReady(ctx, c.StartTimeout, func(ctx context.Context) error {
		if err := getOK(ctx, client, s.URL+"/_ready"); err != nil {
			return err
		}
		return getOK(ctx, client, "http://"+s.MetricsAddr+"/metrics")
	})
}

// PyCounts is the service's own count of its requests.
type PyCounts struct {
	// Started is the requests whose handler started, Served those it
	// finished; Queued the connections waiting in the kernel's accept
	// backlog (not yet started).
	Started, Served, Queued float64
}

// Arrivals is every request that has reached the service: started, or
// waiting to be accepted.
func (c PyCounts) Arrivals() float64 { return c.Started + c.Queued }

// Counts reads the service's counts file and its accept backlog.
func (s *PyServer) Counts() (PyCounts, error) {
	b, err := os.ReadFile(s.counts)
	if err != nil {
		return PyCounts{}, fmt.Errorf("staging: pyserver counts: %w", err)
	}
	if len(b) < 16 {
		return PyCounts{}, fmt.Errorf("staging: pyserver counts: %d bytes", len(b))
	}
	c := PyCounts{Started: float64(binary.LittleEndian.Uint64(b[0:8])), Served: float64(binary.LittleEndian.Uint64(b[8:16]))}
	if q, ok := acceptQueue(s.Addr); ok {
		c.Queued = q
	}
	return c, nil
}

// Dir returns the directory of the script and its log.
func (s *PyServer) Dir() string { return s.dir }

// Log returns the end of the server's output, at most 4 KiB.
func (s *PyServer) Log() string { return s.p.tail() }

// Stop ends the server, waits for it, and removes its directory if
// StartPyServer created it. It returns an error if it had ended on its
// own. Idempotent.
func (s *PyServer) Stop() error {
	err := s.p.stop()
	s.removeDir()
	return err
}

func (s *PyServer) removeDir() {
	if s.ownDir {
		_ = os.RemoveAll(s.dir)
	}
}
