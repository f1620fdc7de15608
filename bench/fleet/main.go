// Command fleet-bench measures the coordination of a run spread over local
// agents (package fleet, engine local): how soon after a second ends the
// coordinator holds that second merged from every agent, and what each
// agent process costs (CPU time, peak resident memory) beside the load it
// sends. It builds the trigger binary, serves a fast target on loopback,
// and runs, for each agent count, a constant stage at the same total rate
// for a fixed time. Everything talks to 127.0.0.1 and stops by itself.
// Figures and the command are in bench/fleet/README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trigger-test/trigger/fleet"
)

func main() {
	agents := flag.String("agents", "1,2,4,8", "agent counts to measure, comma-separated")
	rate := flag.Float64("rate", 1000, "total first attempts per second, split over the agents")
	duration := flag.Duration("duration", 20*time.Second, "how long each measurement sends load")
	flag.Parse()
	if err := run(*agents, *rate, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "fleet-bench:", err)
		os.Exit(1)
	}
}

func run(agentList string, rate float64, duration time.Duration) error {
	dir, err := os.MkdirTemp("", "fleet-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "trigger")
	build := exec.Command("go", "build", "-o", bin, "./cmd/trigger")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	url, stop, err := serveTarget()
	if err != nil {
		return err
	}
	defer stop()
	fmt.Printf("%d first attempts/s in total for %s, fast target on loopback\n\n", int(rate), duration)
	fmt.Printf("%6s  %8s  %8s  %8s  %10s  %14s  %14s  %12s\n", "agents", "seconds", "lag p50", "lag max", "late >1 s", "CPU all (%)", "CPU/agent (%)", "RSS/agent")
	for _, f := range strings.Split(agentList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return fmt.Errorf("-agents: %q is not a count", f)
		}
		m, err := measure(bin, url, n, rate, duration)
		if err != nil {
			return fmt.Errorf("%d agents: %w", n, err)
		}
		fmt.Printf("%6d  %8d  %6.0f ms  %6.0f ms  %10d  %14.1f  %14.1f  %9.1f MB\n", n, len(m.lags), 1000*pct(m.lags, 0.5), 1000*pct(m.lags, 1),
			m.late, 100*m.cpuPerAgent*float64(n), 100*m.cpuPerAgent, m.rssPerAgentMB)
	}
	return nil
}

// measurement is one agent count's figures: each merged second's delivery
// lag after its end (seconds), how many came more than a second late, and
// the agents' mean CPU share (CPU seconds per second of wall time) and
// mean peak resident memory.
type measurement struct {
	lags                       []float64
	late                       int
	cpuPerAgent, rssPerAgentMB float64
}

func measure(bin, url string, n int, rate float64, duration time.Duration) (measurement, error) {
	var m measurement
	src := fmt.Appendf(nil, `
scenario "fleet-bench" { max_duration = "%s" }
target {
  url         = "%s"
  allow_hosts = ["127.0.0.1"]
}
client { timeout = "1s" }
service { capacity = %g }
load {
  baseline = %g
  warmup   = "%s"
  spike {
    multiplier = 2
    duration   = "1s"
  }
  observe = "1s"
}
`, duration+time.Minute, url, 10*rate, rate, duration)
	eng := &fleet.LocalEngine{Binary: bin}
	c, err := fleet.NewCoordinator(fleet.Config{RunID: "bench", Agents: n, Engine: eng, File: "fleet-bench.hcl", Source: src,
		Seed: 1, MaxInFlight: 20000, MaxDuration: duration + time.Minute})
	if err != nil {
		return m, err
	}
	defer c.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), duration+time.Minute)
	defer cancel()
	if err := c.Launch(ctx); err != nil {
		return m, err
	}
	pids := agentPIDs()
	before := cpuSeconds(pids)
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	want := int(duration / time.Second)
	for seen := 0; seen < want; {
		select {
		case err := <-done:
			return m, fmt.Errorf("the run ended after %d seconds: %w", seen, err)
		case <-time.After(5 * time.Millisecond):
		}
		got := len(c.TimelineSince(0))
		at := c.Elapsed().Seconds()
		for ; seen < got && seen < want; seen++ {
			lag := at - float64(seen+1)
			m.lags = append(m.lags, lag)
			if lag > 1 {
				m.late++
			}
		}
	}
	wall := time.Since(began).Seconds()
	after := cpuSeconds(pids)
	for i, p := range pids {
		m.cpuPerAgent += (after[i] - before[i]) / wall / float64(len(pids))
		m.rssPerAgentMB += peakRSSMB(p) / float64(len(pids))
	}
	cancel()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		return m, err
	}
	return m, nil
}

// serveTarget answers every request at once with an empty 200 on loopback.
func serveTarget() (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
}

// agentPIDs are this process's children other than the go build: the
// agents the local engine started.
func agentPIDs() []int {
	self := strconv.Itoa(os.Getpid())
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		f := statFields(pid)
		if len(f) > 1 && f[1] == self {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out
}

// statFields are the fields of /proc/PID/stat after the command name:
// [0] state, [1] ppid, …, [11] utime, [12] stime (clock ticks).
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// clockTicks is USER_HZ, the unit of utime and stime: 100 on Linux.
const clockTicks = 100

// cpuSeconds is each process's user + system CPU time, seconds.
func cpuSeconds(pids []int) []float64 {
	out := make([]float64, len(pids))
	for i, p := range pids {
		f := statFields(p)
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		out[i] = (u + s) / clockTicks
	}
	return out
}

// peakRSSMB is a process's peak resident memory (VmHWM), megabytes.
func peakRSSMB(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}

// pct is the p-quantile of xs (nearest rank); NaN when empty.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(p*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}
