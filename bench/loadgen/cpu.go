package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// cpuRun is one tool's run in one trial of the CPU comparison.
type cpuRun struct {
	Trial    int     `json:"trial"`
	Tool     string  `json:"tool"` // vegeta, lean (ours, LeanTransport), lean1 (the same on one processor, GOMAXPROCS=1), nethttp (ours, net/http's Transport)
	Rate     float64 `json:"target_rate_per_s"`
	Achieved float64 `json:"achieved_rate_per_s"`
	// Attempts actually sent: vegeta's `requests`, ours `sent`; and those
	// over the run's scheduled length (achieved rate divides by the time
	// from the first send to the last, which hides a run that stalled).
	Attempts int64   `json:"attempts"`
	SentPerS float64 `json:"sent_per_scheduled_s"`
	Success  float64 `json:"success_ratio"`
	Dropped  int64   `json:"dropped"` // ours only: first attempts more than MaxLag late
	Held     bool    `json:"held_rate"`
	// Of the generator's process alone (wait4's rusage).
	Usage         procUsage `json:"usage"`
	CPUUsPerAtt   float64   `json:"cpu_us_per_attempt"`
	UserUsPerAtt  float64   `json:"user_us_per_attempt"`
	SysUsPerAtt   float64   `json:"sys_us_per_attempt"`
	TimeWait      twWait    `json:"time_wait"`
	Load          string    `json:"load_1m"`
	LatencyP99Ms  float64   `json:"latency_p99_ms"`
	RunInTrialPos int       `json:"position_in_trial"`
}

// cpuTool sums a tool's runs.
type cpuTool struct {
	Tool string `json:"tool"`
	Runs int    `json:"runs"`
	Held int    `json:"runs_holding_rate"`
	// MedianUs is over the runs that held the rate (all runs when none
	// did): a run that fell behind is dearer per attempt (a spiral of
	// connections), and would make the other tools look better.
	MedianUs      float64 `json:"median_cpu_us_per_attempt"`
	MedianOfHeld  bool    `json:"median_of_runs_holding_rate"`
	MinUs         float64 `json:"min_cpu_us_per_attempt"`
	MaxUs         float64 `json:"max_cpu_us_per_attempt"`
	MinAchieved   float64 `json:"min_achieved_rate_per_s"`
	MaxAchieved   float64 `json:"max_achieved_rate_per_s"`
	MinSentPerS   float64 `json:"min_sent_per_scheduled_s"`
	MaxSentPerS   float64 `json:"max_sent_per_scheduled_s"`
	RatioToVegeta float64 `json:"median_ratio_to_vegeta,omitempty"`
	// PairedRatios is this tool's CPU per attempt over vegeta's in the same
	// trial, for each trial in which both held the rate.
	PairedRatios []float64 `json:"paired_ratios_to_vegeta,omitempty"`
}

// cpuCompare runs vegeta and our driver at one rate against the same target,
// TRIALS times each, rotating the order within each trial, and reports the
// CPU time (user + system) each generator's process spent per attempt it
// actually sent. Before each run it waits for the target port's TIME_WAIT
// sockets to drain (bounded).
func cpuCompare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cpu", flag.ExitOnError)
	vegeta := fs.String("vegeta", "vegeta", "vegeta binary")
	u := fs.String("url", "http://127.0.0.1:8099/", "fast target (loopback)")
	rate := fs.Float64("rate", 10000, "attempts per second, both tools")
	dur := fs.Duration("duration", 20*time.Second, "length of each run")
	timeout := fs.Duration("timeout", 10*time.Second, "per-request timeout of both tools")
	trials := fs.Int("trials", 3, "trials; each runs every tool once")
	tools := fs.String("tools", "vegeta,lean,lean1,nethttp", "tools, comma-separated: vegeta, lean (ours, default LeanTransport), lean1 (the same with GOMAXPROCS=1, as an agent on one core runs), nethttp (ours, net/http's Transport)")
	tol := fs.Float64("tol", 0.005, "relative tolerance on the achieved rate for a run to count as holding the rate")
	minSuccess := fs.Float64("min-success", 0.99, "least success ratio for a run to count as holding the rate")
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
	names := strings.Split(*tools, ",")
	for _, n := range names {
		if n != "vegeta" && n != "lean" && n != "lean1" && n != "nethttp" {
			return fmt.Errorf("unknown tool %q", n)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "loadgen-cpu")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Fprintf(os.Stderr, "%-5s %-8s %10s %9s %9s %7s %8s %8s %8s %9s %9s %8s  %s\n",
		"trial", "tool", "achieved/s", "attempts", "sent/dur", "ok", "dropped", "user s", "sys s", "µs/att", "MaxRSS", "load", "TIME_WAIT on :port before the run")
	var runs []cpuRun
	for trial := 1; trial <= *trials; trial++ {
		order := slices.Clone(names)
		if trial%2 == 0 {
			slices.Reverse(order)
		}
		for pos, tool := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := cpuRun{Trial: trial, Tool: tool, Rate: *rate, RunInTrialPos: pos + 1}
			r.TimeWait = waitTimeWait(port, *twMax, *twBound)
			r.Load = loadavg()
			switch tool {
			case "vegeta":
				rep, use, err := runVegeta(ctx, *vegeta, *u, *rate, *dur, *timeout, filepath.Join(tmp, "v.bin"))
				if err != nil {
					return err
				}
				r.Achieved, r.Attempts, r.Success, r.Usage = rep.Rate, rep.Requests, rep.Success, use
				r.LatencyP99Ms = float64(rep.Latencies.P99) / 1e6
			default:
				procs := 0 // the runtime's default: one per core
				if tool == "lean1" {
					procs = 1
				}
				res, use, err := runDrive(ctx, self, *u, *rate, *dur, *timeout, tool == "nethttp", procs)
				if err != nil {
					return err
				}
				r.Achieved, r.Attempts, r.Success, r.Dropped, r.Usage = res.Achieved, res.Sent, res.Success, res.Dropped, use
				r.LatencyP99Ms = res.LatencyP99Ms
			}
			r.Held = heldRate(r.Achieved, *rate, *tol, r.Success, *minSuccess, r.Dropped)
			r.SentPerS = float64(r.Attempts) / dur.Seconds()
			if r.Attempts > 0 {
				n := float64(r.Attempts)
				r.CPUUsPerAtt = r.Usage.CPUS() * 1e6 / n
				r.UserUsPerAtt = r.Usage.UserS * 1e6 / n
				r.SysUsPerAtt = r.Usage.SysS * 1e6 / n
			}
			held := ""
			if !r.Held {
				held = "  (rate not held)"
			}
			fmt.Fprintf(os.Stderr, "%-5d %-8s %10.1f %9d %9.1f %7.4f %8d %8.2f %8.2f %9.2f %6.0f MiB %8s  %v%s\n",
				trial, tool, r.Achieved, r.Attempts, r.SentPerS, r.Success, r.Dropped, r.Usage.UserS, r.Usage.SysS, r.CPUUsPerAtt, r.Usage.MaxRSSMiB, r.Load, r.TimeWait, held)
			runs = append(runs, r)
			time.Sleep(2 * time.Second) // let the target settle
		}
	}
	end := waitTimeWait(port, 0, 0) // just the count the last run left

	var sums []cpuTool
	var vegetaMedian float64
	for _, tool := range names {
		s := cpuTool{Tool: tool, MinUs: math.Inf(1), MinAchieved: math.Inf(1), MinSentPerS: math.Inf(1)}
		var us, held []float64
		for _, r := range runs {
			if r.Tool != tool {
				continue
			}
			s.Runs++
			if r.Held {
				s.Held++
				held = append(held, r.CPUUsPerAtt)
				if v := vegetaRun(runs, r.Trial); tool != "vegeta" && v != nil && v.Held {
					s.PairedRatios = append(s.PairedRatios, r.CPUUsPerAtt/v.CPUUsPerAtt)
				}
			}
			us = append(us, r.CPUUsPerAtt)
			s.MinUs, s.MaxUs = min(s.MinUs, r.CPUUsPerAtt), max(s.MaxUs, r.CPUUsPerAtt)
			s.MinAchieved, s.MaxAchieved = min(s.MinAchieved, r.Achieved), max(s.MaxAchieved, r.Achieved)
			s.MinSentPerS, s.MaxSentPerS = min(s.MinSentPerS, r.SentPerS), max(s.MaxSentPerS, r.SentPerS)
		}
		if len(us) == 0 {
			continue
		}
		s.MedianUs, s.MedianOfHeld = median(us), false
		if len(held) > 0 {
			s.MedianUs, s.MedianOfHeld = median(held), true
		}
		if tool == "vegeta" {
			vegetaMedian = s.MedianUs
		}
		sums = append(sums, s)
	}
	fmt.Fprintf(os.Stderr, "\nCPU per attempt sent at %.0f/s for %v, %d trials (generator's process only; user + system):\n", *rate, *dur, *trials)
	for i := range sums {
		s := &sums[i]
		ratio := ""
		if vegetaMedian > 0 && s.Tool != "vegeta" {
			s.RatioToVegeta = s.MedianUs / vegetaMedian
			ratio = fmt.Sprintf(", %.2f× vegeta's median", s.RatioToVegeta)
			if len(s.PairedRatios) > 0 {
				ratio += "; per trial where both held the rate:"
				for _, p := range s.PairedRatios {
					ratio += fmt.Sprintf(" %.2f×", p)
				}
			}
		}
		of := "of those holding the rate"
		if !s.MedianOfHeld {
			of = "of all runs (none held the rate)"
		}
		fmt.Fprintf(os.Stderr, "  %-8s median %6.2f µs %s (all: %.2f–%.2f) over %d runs, %d holding the rate; achieved %.1f–%.1f/s, sent %.0f–%.0f per scheduled s%s\n",
			s.Tool, s.MedianUs, of, s.MinUs, s.MaxUs, s.Runs, s.Held, s.MinAchieved, s.MaxAchieved, s.MinSentPerS, s.MaxSentPerS, ratio)
	}
	fmt.Fprintf(os.Stderr, "  TIME_WAIT on :%d after the last run: %d\n", port, end.Before)
	out := struct {
		Rate          float64   `json:"target_rate_per_s"`
		DurationS     float64   `json:"duration_s"`
		Trials        int       `json:"trials"`
		Port          int       `json:"port"`
		TWMax         int       `json:"time_wait_max_to_start"`
		TWBoundS      float64   `json:"time_wait_wait_bound_s"`
		TimeWaitAtEnd int       `json:"time_wait_after_last_run"`
		Tools         []cpuTool `json:"tools"`
		Runs          []cpuRun  `json:"runs"`
	}{*rate, dur.Seconds(), *trials, port, *twMax, twBound.Seconds(), end.Before, sums, runs}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(out)
}

// vegetaRun returns vegeta's run in trial, or nil.
func vegetaRun(runs []cpuRun, trial int) *cpuRun {
	for i := range runs {
		if runs[i].Tool == "vegeta" && runs[i].Trial == trial {
			return &runs[i]
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
