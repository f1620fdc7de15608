package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildTrigger builds this command once per test binary.
func buildTrigger(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the trigger binary and runs it; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "trigger")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A closed terminal (SIGHUP), a CI job's or Kubernetes' stop (SIGTERM),
// Ctrl-C and SIGQUIT all stop a run the same way: the load stops, and the
// result is written before the process exits 130 (SIGHUP used to end it at
// once with 129 and no result.json; SIGQUIT with 2, the usage code).
func TestEverySignalStopsTheRunAndWritesTheResult(t *testing.T) {
	bin := buildTrigger(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer target.Close()
	dir := t.TempDir()
	scenario := writeScenario(t, dir, "signals", target.URL, `client { timeout = "500ms" }
service { capacity = 1000 }
load {
  baseline = 20
  warmup   = "20s"
  spike {
    multiplier = 60
    duration   = "2s"
  }
  observe = "10s"
}
`)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(sig.String(), " ", "-"))
			cmd := exec.Command(bin, "run", "--yes", "--out", out, scenario)
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Once the first second of load is in the timeline.
			deadline := time.Now().Add(15 * time.Second)
			for {
				if b, err := os.ReadFile(filepath.Join(out, "timeline.csv")); err == nil && bytes.Count(b, []byte("\n")) >= 2 {
					break
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("no timeline after 15 s:\n%s", stderr.String())
				}
				time.Sleep(50 * time.Millisecond)
			}
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20 s after %s:\n%s", sig, stderr.String())
			}
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 130 {
				t.Errorf("after %s: %v, want exit 130\n%s", sig, err, stderr.String())
			}
			if _, err := os.Stat(filepath.Join(out, "result.json")); err != nil {
				t.Errorf("after %s: no result.json: %v", sig, err)
			}
			t.Logf("%s: exited %.1f s after the signal", sig, time.Since(sent).Seconds())
		})
	}
}

// Time the driver lost is not the service's failure: a spike that cannot
// trigger (k·ρ = 0.4) against a target that answers every request after
// 300 ms (its client's timeout is 500 ms), with the trigger process itself
// stopped (SIGSTOP) for 2.5 s in the spike, is still no trigger (exit 3). Before, the attempts whose deadlines passed
// while it was stopped counted as the service's timeouts, and the run
// "recovered" and passed its gate.
func TestAStalledDriverIsNoTrigger(t *testing.T) {
	bin := buildTrigger(t)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(300 * time.Millisecond):
		case <-r.Context().Done():
		}
	}))
	defer target.Close()
	dir := t.TempDir()
	scenario := writeScenario(t, dir, "stall", target.URL, `client {
  timeout = "500ms"
  retry { max_retries = 2 }
}
service { capacity = 1000 }
load {
  baseline = 100
  warmup   = "3s"
  spike {
    multiplier = 4
    duration   = "6s"
  }
  observe = "8s"
}
recovery { hold = "2s" }
`)
	out := filepath.Join(dir, "out")
	cmd := exec.Command(bin, "run", "--yes", "--out", out, scenario)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// One second into the spike (the warmup is 3 s), stop it for 2.5 s.
	time.Sleep(4500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(45 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("still running:\n%s", stderr.String())
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exit %v, want 3 (no trigger)\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"verdict": "no-trigger"`)) || !bytes.Contains(b, []byte("the driver")) {
		t.Errorf("result.json: want verdict no-trigger and a finding about the driver's stall:\n%s", grep(b, "verdict", "driver"))
	}
	tl, err := os.ReadFile(filepath.Join(out, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("timeline:\n%s", tl)
}

// grep keeps the lines of b that contain any of subs.
func grep(b []byte, subs ...string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, s := range subs {
			if strings.Contains(l, s) {
				out = append(out, l)
				break
			}
		}
	}
	return strings.Join(out, "\n")
}

// The driver's memory is bounded whatever the target sends: a whole run
// against a target whose every response is one endless header line (as
// fast as loopback carries it) peaks under 200 MB of resident memory
// (it took 2.97 GB, and an out-of-memory crash, before the lean path
// bounded response heads).
func TestMemoryBoundedAgainstAnEndlessHeader(t *testing.T) {
	bin := buildTrigger(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		line := []byte(strings.Repeat("a", 64<<10))
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(20 * time.Second))
				buf := make([]byte, 4096)
				if _, err := c.Read(buf); err != nil {
					return
				}
				if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nX-Endless: ")); err != nil {
					return
				}
				for {
					if _, err := c.Write(line); err != nil {
						return
					}
				}
			}()
		}
	}()
	dir := t.TempDir()
	scenario := writeScenario(t, dir, "endless-header", "http://"+ln.Addr().String(), `client { timeout = "2s" }
service { capacity = 1000 }
load {
  baseline = 50
  warmup   = "5s"
  spike {
    multiplier = 30
    duration   = "2s"
  }
  observe = "5s"
}
`)
	cmd := exec.Command(bin, "run", "--yes", "--out", filepath.Join(dir, "out"), scenario)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("exit %v, want 3 (the baseline already fails)\n%s", err, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this system")
	}
	peakMB := float64(ru.Maxrss) / 1024 // kilobytes on Linux
	t.Logf("peak resident memory %.0f MB", peakMB)
	if peakMB >= 200 {
		t.Errorf("peak resident memory %.0f MB, want under 200 MB", peakMB)
	}
}

// A FIFO as the scenario path does not hang `trigger plan`, and a signal
// stops it at once while it waits for a writer (it ignored SIGTERM and
// waited for ever).
func TestPlanOfAFIFOStopsOnSIGTERM(t *testing.T) {
	bin := buildTrigger(t)
	fifo := filepath.Join(t.TempDir(), "s.hcl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	cmd := exec.Command(bin, "plan", fifo)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("plan of a FIFO after SIGTERM: %v, want exit 130\n%s", err, out.String())
		}
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("plan of a FIFO still running 5 s after SIGTERM\n%s", out.String())
	}
}

// writeScenario writes a scenario named name against url/work in dir,
// allowlisting 127.0.0.1, with the blocks body, and returns its path.
func writeScenario(t *testing.T, dir, name, url, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".hcl")
	src := fmt.Sprintf("scenario %q { max_duration = \"1m\" }\ntarget {\n  url         = \"%s/work\"\n  allow_hosts = [\"127.0.0.1\"]\n}\n%s", name, url, body)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
