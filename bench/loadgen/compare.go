package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// vegetaReport is the part of `vegeta report -type=json` that compare reads.
type vegetaReport struct {
	Requests  int64   `json:"requests"`
	Rate      float64 `json:"rate"`
	Success   float64 `json:"success"`
	Latencies struct {
		P50 int64 `json:"50th"`
		P99 int64 `json:"99th"`
	} `json:"latencies"`
}

// row is one trial at one rate of the comparison.
type row struct {
	Rate     float64      `json:"target_rate_per_s"`
	Trial    int          `json:"trial"`
	Vegeta   vegetaReport `json:"vegeta"`
	Ours     driveResult  `json:"ours"`
	VegetaOK bool         `json:"vegeta_sustained"`
	OursOK   bool         `json:"ours_sustained"`
	// TIME_WAIT sockets on the target's port before each tool's run, and
	// the wait for them to drain.
	VegetaTW twWait `json:"vegeta_time_wait"`
	OursTW   twWait `json:"ours_time_wait"`
}

// heldRate reports whether a run held its target rate: achieved within
// the relative tolerance tol of rate, at least minSuccess of its attempts
// successful, and (ours) no first attempt dropped for lateness.
func heldRate(achieved, rate, tol, success, minSuccess float64, dropped int64) bool {
	return math.Abs(achieved/rate-1) <= tol && success >= minSuccess && dropped == 0
}

// compare runs vegeta and the driver (each in its own process, one after the
// other, alternating which goes first) at each rate against the same target,
// then the driver alone at half its highest sustained rate for the lag.
func compare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	vegeta := fs.String("vegeta", "vegeta", "vegeta binary")
	u := fs.String("url", "http://127.0.0.1:8099/", "fast target (loopback)")
	rates := fs.String("rates", "2000,4000,6000,8000,10000,12000,14000,16000,18000,20000", "rates to try, per second")
	dur := fs.Duration("duration", 10*time.Second, "length of each attack")
	tol := fs.Float64("tol", 0.005, "relative tolerance on the achieved rate")
	minSuccess := fs.Float64("min-success", 0.99, "least success ratio for a rate to count as sustained")
	lagDur := fs.Duration("lag-duration", 30*time.Second, "length of the lag run at half the highest sustained rate")
	timeout := fs.Duration("timeout", 10*time.Second, "per-request timeout of both tools")
	netHTTP := fs.Bool("nethttp", false, "drive with net/http's Transport instead of the default LeanTransport")
	trials := fs.Int("trials", 3, "trials per rate; a tool sustains a rate if any trial does (the machine is shared: a trial can be spoiled by others' load, not improved by it)")
	twMax := fs.Int("tw-max", 1000, "before each run, wait until at most this many sockets on the target's port are in TIME_WAIT")
	twBound := fs.Duration("tw-wait", 70*time.Second, "longest wait for TIME_WAIT to drain; then go on (and say so)")
	fs.Parse(args)
	if err := loopbackURL(*u); err != nil {
		return err
	}
	port, err := urlPort(*u)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "loadgen-compare")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	var rows []row
	bestV, bestO := 0.0, 0.0
	i := 0
	for _, f := range strings.Split(*rates, ",") {
		rate, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return fmt.Errorf("rate %q: %w", f, err)
		}
		anyOK := false
		for trial := 1; trial <= *trials; trial++ {
			i++
			r := row{Rate: rate, Trial: trial}
			runV := func() error {
				r.VegetaTW = waitTimeWait(port, *twMax, *twBound)
				r.Vegeta, _, err = runVegeta(ctx, *vegeta, *u, rate, *dur, *timeout, filepath.Join(tmp, "v.bin"))
				return err
			}
			runO := func() error {
				r.OursTW = waitTimeWait(port, *twMax, *twBound)
				r.Ours, _, err = runDrive(ctx, self, *u, rate, *dur, *timeout, *netHTTP, 0)
				return err
			}
			order := []func() error{runV, runO}
			if i%2 == 1 {
				order = []func() error{runO, runV}
			}
			for _, run := range order {
				if err := run(); err != nil {
					return err
				}
				time.Sleep(2 * time.Second) // let the target settle (TIME_WAIT: waited for before each run)
			}
			r.VegetaOK = heldRate(r.Vegeta.Rate, rate, *tol, r.Vegeta.Success, *minSuccess, 0)
			r.OursOK = heldRate(r.Ours.Achieved, rate, *tol, r.Ours.Success, *minSuccess, r.Ours.Dropped)
			if r.VegetaOK {
				bestV = max(bestV, rate)
			}
			if r.OursOK {
				bestO = max(bestO, rate)
			}
			fmt.Fprintf(os.Stderr, "rate %6.0f #%d  vegeta %9.1f/s ok %.4f %-5v  ours %9.1f/s ok %.4f dropped %d lag p99 %.2f ms %v  (load %s; before vegeta %v, before ours %v)\n",
				rate, trial, r.Vegeta.Rate, r.Vegeta.Success, r.VegetaOK, r.Ours.Achieved, r.Ours.Success, r.Ours.Dropped, r.Ours.LagP99Ms, r.OursOK, loadavg(), r.VegetaTW, r.OursTW)
			rows = append(rows, r)
			anyOK = anyOK || r.VegetaOK || r.OursOK
			if r.VegetaOK && r.OursOK {
				break // both sustained this rate: no need for more trials
			}
		}
		if !anyOK {
			break // neither tool sustained this rate in any trial: stop climbing
		}
	}
	out := struct {
		Rows       []row        `json:"rows"`
		VegetaMax  float64      `json:"vegeta_max_sustained_per_s"`
		OursMax    float64      `json:"ours_max_sustained_per_s"`
		LagAtHalf  *driveResult `json:"ours_at_half_max"`
		DurationS  float64      `json:"duration_s"`
		Tolerance  float64      `json:"tolerance"`
		MinSuccess float64      `json:"min_success"`
	}{Rows: rows, VegetaMax: bestV, OursMax: bestO, DurationS: dur.Seconds(), Tolerance: *tol, MinSuccess: *minSuccess}
	if bestO > 0 {
		waitTimeWait(port, *twMax, *twBound)
		res, _, err := runDrive(ctx, self, *u, bestO/2, *lagDur, *timeout, *netHTTP, 0)
		if err != nil {
			return err
		}
		out.LagAtHalf = &res
		fmt.Fprintf(os.Stderr, "half rate %.0f for %v: lag p50 %.3f ms p99 %.3f ms max %.3f ms\n", bestO/2, *lagDur, res.LagP50Ms, res.LagP99Ms, res.LagMaxMs)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// urlPort returns the port of an http:// URL (80 if it has none).
func urlPort(raw string) (int, error) {
	pu, err := url.Parse(raw)
	if err != nil {
		return 0, err
	}
	if pu.Port() == "" {
		return 80, nil
	}
	return strconv.Atoi(pu.Port())
}

// loadavg returns the 1-minute load average.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// procUsage is a finished child process's own resource usage (wait4's
// rusage): the load generator's process alone, not the target's, not
// `vegeta report`'s.
type procUsage struct {
	UserS     float64 `json:"user_s"`
	SysS      float64 `json:"sys_s"`
	MaxRSSMiB float64 `json:"max_rss_mib"`
	WallS     float64 `json:"wall_s"`
}

// CPUS is user + system time.
func (p procUsage) CPUS() float64 { return p.UserS + p.SysS }

// usageOf reads the usage of a command that has run since start.
func usageOf(cmd *exec.Cmd, start time.Time) procUsage {
	u := procUsage{WallS: time.Since(start).Seconds()}
	if ps := cmd.ProcessState; ps != nil {
		u.UserS, u.SysS = ps.UserTime().Seconds(), ps.SystemTime().Seconds()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			u.MaxRSSMiB = float64(ru.Maxrss) / 1024 // KiB on Linux
		}
	}
	return u
}

// runVegeta attacks at rate for dur and returns vegeta's own report and the
// usage of the `vegeta attack` process.
func runVegeta(ctx context.Context, bin, u string, rate float64, dur, timeout time.Duration, out string) (vegetaReport, procUsage, error) {
	var rep vegetaReport
	var use procUsage
	ctx, cancel := context.WithTimeout(ctx, dur+timeout+time.Minute)
	defer cancel()
	attack := exec.CommandContext(ctx, bin, "attack",
		"-rate", strconv.FormatFloat(rate, 'f', -1, 64)+"/1s", "-duration", dur.String(),
		"-timeout", timeout.String(), "-output", out)
	attack.Stdin = strings.NewReader("GET " + u + "\n")
	attack.Stderr = os.Stderr
	start := time.Now()
	if err := attack.Run(); err != nil {
		return rep, use, fmt.Errorf("vegeta attack: %w", err)
	}
	use = usageOf(attack, start)
	report, err := exec.CommandContext(ctx, bin, "report", "-type=json", out).Output()
	if err != nil {
		return rep, use, fmt.Errorf("vegeta report: %w", err)
	}
	if err := json.Unmarshal(report, &rep); err != nil {
		return rep, use, fmt.Errorf("vegeta report: %w", err)
	}
	return rep, use, nil
}

// runDrive runs this program's drive mode in its own process and returns its
// result and the usage of that process; procs > 0 sets its GOMAXPROCS (0
// leaves the runtime's default, one per core).
func runDrive(ctx context.Context, self, u string, rate float64, dur, timeout time.Duration, netHTTP bool, procs int) (driveResult, procUsage, error) {
	var res driveResult
	var use procUsage
	ctx, cancel := context.WithTimeout(ctx, dur+2*timeout+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "drive", "-url", u, "-rate", strconv.FormatFloat(rate, 'f', -1, 64),
		"-duration", dur.String(), "-timeout", timeout.String())
	if netHTTP {
		cmd.Args = append(cmd.Args, "-nethttp")
	}
	if procs > 0 {
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(procs))
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	b, err := cmd.Output()
	if err != nil {
		return res, use, fmt.Errorf("drive: %w", err)
	}
	use = usageOf(cmd, start)
	if err := json.Unmarshal(bytes.TrimSpace(b), &res); err != nil {
		return res, use, fmt.Errorf("drive output: %w", err)
	}
	return res, use, nil
}
