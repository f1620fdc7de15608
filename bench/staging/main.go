// Command staging runs the field test's cases (internal/fieldtest) against
// staging-like stacks of real components from Debian: the specimen behind
// haproxy at a 5 s and a 15 s scrape interval, uWSGI (alone or behind
// haproxy) at 10 s, and the field laws' stacks (haproxy's own queue,
// haproxy's accept backlog, Python's ThreadingHTTPServer) at 10 s; it
// repeats each recovering case and every application-server and field
// laws' case, and prints one Markdown table row per run and a summary. It
// is what the README's table of verdicts and estimates comes from:
//
//	go run ./bench/staging                      # everything, repeated cases 5×
//	go run ./bench/staging -signals app -repeat 2
//
// Each run drives at most a few hundred attempts per second on loopback
// for one to six minutes and stops by itself; -parallel runs that many
// side by side (each with its own specimen, haproxy and Prometheus).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/internal/fieldtest"
)

func main() {
	sigFlag := flag.String("signals", "fast,slow,app,laws", "what to run: fast, slow (the proxy stack's cases at a 5 s scrape with [20s] windows, at 15 s with [1m]), app (the application-server cases at 10 s with [30s]), laws (the field laws' cases at 10 s with [30s])")
	repeat := flag.Int("repeat", 5, "runs of each recovering case per resolution, and of every application-server and field laws' case (the proxy stack's trapped cases run once)")
	parallel := flag.Int("parallel", 3, "runs side by side")
	only := flag.String("cases", "", "comma-separated case names (default: all)")
	holds := flag.String("holds", "10s,60s", "the recovery.hold values each field laws' case runs at (the other sets keep 3s)")
	outDir := flag.String("out", "", "folder for the runs' folders (default: a new temporary folder)")
	flag.Parse()

	type set struct {
		s     fieldtest.Signals
		cases []fieldtest.Case
	}
	var sets []set
	for _, s := range strings.Split(*sigFlag, ",") {
		switch strings.TrimSpace(s) {
		case "fast":
			sets = append(sets, set{fieldtest.Fast, fieldtest.Cases()})
		case "slow":
			sets = append(sets, set{fieldtest.Slow, fieldtest.Cases()})
		case "app":
			sets = append(sets, set{fieldtest.AppServer, fieldtest.AppCases()})
		case "laws":
			var cases []fieldtest.Case
			for _, h := range strings.Split(*holds, ",") {
				d, err := time.ParseDuration(strings.TrimSpace(h))
				if err != nil || d <= 0 {
					fmt.Fprintf(os.Stderr, "staging: -holds: %q is not a duration\n", h)
					os.Exit(2)
				}
				for _, c := range fieldtest.FieldLawCases() {
					c.Hold = d
					// Long enough for the hold after a recovery.
					c.Observe = max(c.Observe, d+45*time.Second)
					cases = append(cases, c)
				}
			}
			sets = append(sets, set{fieldtest.AppServer, cases})
		default:
			fmt.Fprintf(os.Stderr, "staging: unknown signals %q (fast, slow, app, laws)\n", s)
			os.Exit(2)
		}
	}
	if *outDir == "" {
		d, err := os.MkdirTemp("", "trigger-staging-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		*outDir = d
	}
	type job struct {
		c   fieldtest.Case
		s   fieldtest.Signals
		run int
	}
	var jobs []job
	for _, set := range sets {
		s := set.s
		for _, c := range set.cases {
			if *only != "" && !strings.Contains(","+*only+",", ","+c.Name+",") {
				continue
			}
			n := 1
			if c.Want == analysis.VerdictRecovered || c.App || c.Stack != "" {
				n = *repeat
			}
			for i := 1; i <= n; i++ {
				jobs = append(jobs, job{c, s, i})
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Printf("%d runs, %d side by side, folders under %s\n\n%s\n", len(jobs), *parallel, *outDir, fieldtest.TableHeader)
	var mu sync.Mutex
	var bad, falseTraps int
	sem := make(chan struct{}, max(1, *parallel))
	var wg sync.WaitGroup
	started := time.Now()
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			dir := filepath.Join(*outDir, fmt.Sprintf("%02d-%s%s-%s-%d", i+1, j.c.Name, holdSuffix(j.c), strings.NewReplacer("/", "-", "[", "", "]", "").Replace(j.s.Name), j.run))
			o, err := fieldtest.Run(ctx, j.c, j.s, fieldtest.Options{OutDir: dir, Seed: uint64(j.run)})
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				bad++
				fmt.Printf("| %s | %s | error: %v |\n", j.c.Name, j.s.Name, err)
				return
			}
			if len(o.Problems()) > 0 {
				bad++
			}
			if j.c.Want == analysis.VerdictRecovered && o.Verdict() == string(analysis.VerdictTrapped) {
				falseTraps++
			}
			fmt.Println(o.Row())
		}()
	}
	wg.Wait()
	fmt.Printf("\n%d runs in %s: %d with problems, %d false traps\n", len(jobs), time.Since(started).Round(time.Second), bad, falseTraps)
	if bad > 0 {
		os.Exit(1)
	}
}

// holdSuffix tells a case's runs at another recovery.hold apart in their
// folders' names: "-hold60s".
func holdSuffix(c fieldtest.Case) string {
	if c.Hold <= 0 {
		return ""
	}
	return "-hold" + strings.ReplaceAll(c.Hold.String(), "m0s", "m")
}
