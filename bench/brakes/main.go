// Command brakes measures how soon a run's load stops after each brake —
// Ctrl-C, a stop condition, max_duration — while its Prometheus hangs,
// answers slowly, or dies: the time from the brake to the last request the
// target saw. Every trial runs on loopback against a recording target and
// a fake Prometheus (internal/staging), bounded in time.
//
//	go run ./bench/brakes [-repeat 3]
//
// It exits 1 if any trial's load outlived its brake by more than a second.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/internal/staging"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
)

// faultAfter is when, after the load started, the fake Prometheus turns
// bad; brakeAfter is when the brake is pulled.
const (
	faultAfter = 1500 * time.Millisecond
	brakeAfter = 4 * time.Second
)

func main() {
	repeat := flag.Int("repeat", 3, "trials per fault and brake")
	flag.Parse()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "prometheus\tbrake\ttrials\tload stopped after (max)\trun ended after (max)\texit kind")
	worst := time.Duration(0)
	for _, fault := range []string{"hang", "slow", "dead"} {
		for _, brake := range []string{"ctrl-c", "stop_when", "max_duration"} {
			var stopMax, endMax time.Duration
			kinds := map[string]int{}
			for range *repeat {
				stop, end, kind, err := trial(fault, brake)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s/%s: %v\n", fault, brake, err)
					os.Exit(2)
				}
				stopMax, endMax = max(stopMax, stop), max(endMax, end)
				kinds[kind]++
			}
			worst = max(worst, stopMax)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%v\n", fault, brake, *repeat, stopMax.Round(time.Millisecond), endMax.Round(100*time.Millisecond), kinds)
		}
	}
	tw.Flush()
	fmt.Printf("worst: load stopped %s after its brake\n", worst.Round(time.Millisecond))
	if worst > time.Second {
		os.Exit(1)
	}
}

// trial runs one bounded run and returns how long after the brake the
// target saw its last request, how long after it Run returned, and the
// run's error kind.
func trial(fault, brake string) (stop, end time.Duration, kind string, err error) {
	tg := staging.StartRecordingTarget()
	defer tg.Stop()
	fp := staging.StartFakePrometheus()
	defer fp.Stop()
	alerts := staging.StartFakePrometheus() // the stop condition's own server
	defer alerts.Stop()
	const cond = `ALERTS{alertstate="firing"}`
	alerts.SetQuiet(cond, true)

	s, err := scenarios.Parse("brakes.hcl", []byte(staging.SmallScenario(tg.URL, fp.URL, "")), nil)
	if err != nil {
		return 0, 0, "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch brake {
	case "stop_when":
		s.StopWhen = []scenarios.StopCondition{{Name: "alerts", Query: cond, Address: alerts.URL}}
	case "max_duration":
		s.MaxDuration = brakeAfter
	}
	var pulled time.Time
	go func() {
		<-tg.Started
		time.Sleep(faultAfter)
		fp.SetMode(fault)
		time.Sleep(brakeAfter - faultAfter)
		pulled = time.Now()
		switch brake {
		case "ctrl-c":
			cancel()
		case "stop_when":
			alerts.SetQuiet(cond, false)
		}
	}()
	dir, err := os.MkdirTemp("", "trigger-brakes-")
	if err != nil {
		return 0, 0, "", err
	}
	defer os.RemoveAll(dir)
	test, err := convert.New(s)
	if err != nil {
		return 0, 0, "", err
	}
	_, runErr := runner.Run(ctx, runner.Options{Test: test, OutDir: dir})
	ended := time.Now()
	if brake == "max_duration" {
		// The run's clock starts with the load, just before its first request.
		pulled = tg.First().Add(brakeAfter)
	}
	if pulled.IsZero() {
		return 0, 0, "", fmt.Errorf("the run ended before the brake: %v", runErr)
	}
	kind = "none"
	if re, ok := runErr.(*runner.Error); ok {
		kind = map[runner.Kind]string{runner.KindUsage: "usage", runner.KindInconclusive: "inconclusive",
			runner.KindHarness: "harness", runner.KindInterrupted: "interrupted", runner.KindStopped: "stopped"}[re.Kind]
	}
	return max(0, tg.Last().Sub(pulled)), ended.Sub(pulled), kind, nil
}
