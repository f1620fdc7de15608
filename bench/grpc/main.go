// Command grpc-bench measures the driver's gRPC path (package loadgen) on
// loopback beside ghz, in one run: at each rate, each tool in its own
// process against the same fast gRPC server (grpc-go's interop
// TestService, EmptyCall), the CPU time (user + system, from wait4's
// rusage) its process spent per call it sent, its achieved rate and its
// success ratio; and the highest rate each sustained. Every mode is
// bounded in time and talks to 127.0.0.0/8 only.
//
//	grpc-bench target  -addr 127.0.0.1:18199 -max 1h
//	grpc-bench drive   -addr 127.0.0.1:18199 -rate 5000 -duration 10s
//	grpc-bench compare -ghz /tmp/x/ghz -addr 127.0.0.1:18199 -rates 2000,5000 -duration 10s
//
// drive and compare print one JSON object on stdout (compare also a table
// on stderr).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	testpb "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"

	"github.com/trigger-test/trigger/loadgen"
	"github.com/trigger-test/trigger/vocab"
)

// method is the call both tools make: an empty message, answered at once.
const method = "grpc.testing.TestService/EmptyCall"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: grpc-bench target|drive|compare [flags]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "target":
		err = target(ctx, os.Args[2:])
	case "drive":
		err = drive(ctx, os.Args[2:])
	case "compare":
		err = compare(ctx, os.Args[2:])
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "grpc-bench:", err)
		os.Exit(1)
	}
}

// loopback refuses an address outside 127.0.0.0/8 and ::1.
func loopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q is not a loopback address", addr)
	}
	return nil
}

// emptyServer answers EmptyCall at once.
type emptyServer struct {
	testpb.UnimplementedTestServiceServer
}

func (emptyServer) EmptyCall(context.Context, *testpb.Empty) (*testpb.Empty, error) {
	return &testpb.Empty{}, nil
}

// target serves TestService (and reflection, which ghz reads the method's
// types from) until ctx is done or max has passed.
func target(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("target", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18199", "listen address (loopback)")
	maxRun := fs.Duration("max", time.Hour, "stop after this long")
	fs.Parse(args)
	if err := loopback(*addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	testpb.RegisterTestServiceServer(srv, emptyServer{})
	reflection.Register(srv)
	fmt.Fprintln(os.Stderr, "listening on", ln.Addr())
	ctx, cancel := context.WithTimeout(ctx, *maxRun)
	defer cancel()
	go func() { <-ctx.Done(); srv.Stop() }()
	return srv.Serve(ln)
}

// driveResult is what drive prints.
type driveResult struct {
	Rate     float64          `json:"target_rate_per_s"`
	Sent     int64            `json:"sent"`
	Attempts int64            `json:"attempts"`
	OK       int64            `json:"ok"`
	Dropped  int64            `json:"dropped"`
	Refused  int64            `json:"refused"`
	Achieved float64          `json:"achieved_rate_per_s"`
	Outcomes map[string]int64 `json:"outcomes"`
	// PerSecond is first attempts sent, dropped and refused in each second.
	PerSecond [][3]int64 `json:"sent_dropped_refused_per_s"`
}

// drive runs the driver at one rate against the target and prints its
// totals.
func drive(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("drive", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:18199", "target (loopback)")
	rate := fs.Float64("rate", 5000, "calls per second")
	dur := fs.Duration("duration", 10*time.Second, "length of the run")
	timeout := fs.Duration("timeout", 10*time.Second, "per-call timeout")
	inFlight := fs.Int("max-in-flight", 400, "Config.MaxInFlight (the pool opens one connection per 100, at most 16)")
	fs.Parse(args)
	if err := loopback(*addr); err != nil {
		return err
	}
	d, err := loadgen.NewDriver(loadgen.Config{
		Request: loadgen.Request{URL: "grpc://" + *addr, Body: []byte(`{}`),
			GRPC: &loadgen.GRPCCall{Method: "/" + method, Input: (&testpb.Empty{}).ProtoReflect().Descriptor()}},
		Stages:      []loadgen.Stage{loadgen.Constant(*dur, *rate)},
		Arrivals:    vocab.Uniform,
		Timeout:     *timeout,
		MaxInFlight: *inFlight,
	})
	if err != nil {
		return err
	}
	if err := d.Run(ctx); err != nil {
		return err
	}
	tot := d.Totals()
	r := driveResult{Rate: *rate, Sent: tot.Sent, Attempts: tot.Attempts(), OK: tot.FirstOutcomes[vocab.OutcomeOK],
		Dropped: tot.Dropped, Refused: tot.Refused, Achieved: tot.AchievedRate(), Outcomes: map[string]int64{}}
	for _, s := range d.Timeline() {
		r.PerSecond = append(r.PerSecond, [3]int64{s.Sent, s.Dropped, s.Refused})
	}
	for o := range vocab.NumOutcomes {
		if n := tot.FirstOutcomes[o]; n > 0 {
			r.Outcomes[o.String()] = n
		}
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// run is one tool's run at one rate.
type run struct {
	Tool     string  `json:"tool"` // ghz or trigger
	Rate     float64 `json:"target_rate_per_s"`
	Calls    int64   `json:"calls"`
	OK       int64   `json:"ok"`
	Achieved float64 `json:"achieved_rate_per_s"`
	Success  float64 `json:"success_ratio"`
	Held     bool    `json:"held_rate"`
	UserS    float64 `json:"user_s"`
	SysS     float64 `json:"sys_s"`
	MaxRSS   float64 `json:"max_rss_mib"`
	CPUUs    float64 `json:"cpu_us_per_call"`
	Load     string  `json:"load_1m"`
}

// compare runs ghz and the driver at each rate, one after the other,
// alternating which goes first.
func compare(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	ghz := fs.String("ghz", "", "ghz binary; empty: the driver alone")
	addr := fs.String("addr", "127.0.0.1:18199", "target (loopback)")
	rates := fs.String("rates", "2000,5000,10000", "rates, calls per second, comma-separated")
	dur := fs.Duration("duration", 10*time.Second, "length of each run")
	inFlight := fs.Int("max-in-flight", 400, "the driver's MaxInFlight; ghz gets as many workers, on as many connections as our pool (MaxInFlight/100, 1–16)")
	tol := fs.Float64("tol", 0.01, "relative tolerance on the achieved rate for a run to hold the rate")
	fs.Parse(args)
	if err := loopback(*addr); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "grpc-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	conns := min(max((*inFlight+99)/100, 1), 16)
	tools := []string{"trigger"}
	if *ghz != "" {
		tools = append(tools, "ghz")
	}
	fmt.Fprintf(os.Stderr, "%-8s %8s %10s %9s %7s %8s %8s %8s %8s %6s\n", "tool", "rate/s", "achieved/s", "calls", "ok", "user s", "sys s", "µs/call", "MaxRSS", "load")
	var runs []run
	best := map[string]float64{}
	for i, f := range strings.Split(*rates, ",") {
		rate, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return err
		}
		order := append([]string(nil), tools...)
		if i%2 == 1 && len(order) == 2 {
			order[0], order[1] = order[1], order[0]
		}
		for _, tool := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			r := run{Tool: tool, Rate: rate, Load: loadavg()}
			var cmd *exec.Cmd
			out := filepath.Join(tmp, fmt.Sprintf("%s-%d.json", tool, i))
			if tool == "ghz" {
				cmd = exec.CommandContext(ctx, *ghz, "--insecure", "--call", method, "-d", "{}",
					"--rps", strconv.Itoa(int(rate)), "-z", dur.String(), "-t", "10s",
					"-c", strconv.Itoa(*inFlight), "--connections", strconv.Itoa(conns),
					"-O", "json", "-o", out, *addr)
			} else {
				cmd = exec.CommandContext(ctx, self, "drive", "-addr", *addr, "-rate", f, "-duration", dur.String(),
					"-max-in-flight", strconv.Itoa(*inFlight))
				fh, err := os.Create(out)
				if err != nil {
					return err
				}
				cmd.Stdout = fh
				defer fh.Close()
			}
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				return fmt.Errorf("%s at %g/s: %w", tool, rate, err)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				r.UserS = time.Duration(ru.Utime.Nano()).Seconds()
				r.SysS = time.Duration(ru.Stime.Nano()).Seconds()
				r.MaxRSS = float64(ru.Maxrss) / 1024
			}
			if err := readResult(tool, out, &r); err != nil {
				return err
			}
			if r.Calls > 0 {
				r.Success = float64(r.OK) / float64(r.Calls)
				r.CPUUs = (r.UserS + r.SysS) * 1e6 / float64(r.Calls)
			}
			r.Held = r.Achieved >= rate*(1-*tol) && r.Success >= 0.99
			if r.Held {
				best[tool] = max(best[tool], rate)
			}
			runs = append(runs, r)
			fmt.Fprintf(os.Stderr, "%-8s %8.0f %10.0f %9d %7.4f %8.2f %8.2f %8.2f %7.0fM %6s\n",
				tool, rate, r.Achieved, r.Calls, r.Success, r.UserS, r.SysS, r.CPUUs, r.MaxRSS, r.Load)
		}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"method": method, "duration_s": dur.Seconds(), "max_in_flight": *inFlight, "connections": conns,
		"max_sustained_per_s": best, "runs": runs,
	})
}

// readResult reads a tool's output file into r: ghz's JSON report
// (count, rps, statusCodeDistribution) or drive's.
func readResult(tool, file string, r *run) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if tool == "ghz" {
		var g struct {
			Count  int64            `json:"count"`
			RPS    float64          `json:"rps"`
			Status map[string]int64 `json:"statusCodeDistribution"`
		}
		if err := json.Unmarshal(b, &g); err != nil {
			return fmt.Errorf("ghz report: %w", err)
		}
		r.Calls, r.Achieved, r.OK = g.Count, g.RPS, g.Status["OK"]
		return nil
	}
	var d driveResult
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("drive result: %w", err)
	}
	if d.Attempts == 0 {
		return errors.New("the driver sent nothing")
	}
	r.Calls, r.Achieved, r.OK = d.Attempts, d.Achieved, d.OK
	return nil
}

// loadavg is the 1-minute load average, or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}
