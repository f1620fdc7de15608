// Command compare measures whether `trigger compare` calls noise a
// regression: PAIRS pairs of runs of one test against one specimen
// (System B: two pods of 100/s behind an admission bound of 0.5 s, started
// afresh on the same loopback address for every run), each pair compared
// as baseline and candidate; then one candidate that is System A (the same
// pods without the admission bound: trapped after the spike), which must
// be a regression.
//
//	go run ./bench/compare [-pairs 5]
//
// Every run is time-compressed (τ_out 1 s, a 5 s spike) and bounded by
// its max_duration; the embedded Prometheus serves each. It exits 1 if a
// same-release pair regressed or the slower release did not.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/runner"
	"github.com/trigger-test/trigger/scenarios"
)

func main() {
	pairs := flag.Int("pairs", 5, "same-release pairs to compare")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	dir, err := os.MkdirTemp("", "trigger-bench-compare-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	systemB := specimen.Config{Pods: 2, PodRate: 100, AdmissionBound: 500 * time.Millisecond}
	run := func(name string, cfg specimen.Config) analysis.Document {
		d, err := runOnce(addr, cfg, filepath.Join(dir, name))
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		fmt.Printf("%-12s %-10s recovery %s  A_fail %s\n", name, d.Verdict, optNum(d.RecoveryS), optNum(d.Amplification.Measured))
		return d
	}
	bad := 0
	var first analysis.Document
	for i := range *pairs {
		base := run(fmt.Sprintf("pair%d-base", i+1), systemB)
		cand := run(fmt.Sprintf("pair%d-cand", i+1), systemB)
		if i == 0 {
			first = base
		}
		c := analysis.Compare(base, cand, analysis.DefaultCompareThresholds)
		fmt.Printf("pair %d: comparable %v, regressed %v\n", i+1, c.Comparable, c.Regressed)
		if !c.Comparable || c.Regressed {
			bad++
		}
	}
	cand := run("system-a", specimen.Config{Pods: 2, PodRate: 100})
	c := analysis.Compare(first, cand, analysis.DefaultCompareThresholds)
	fmt.Printf("System A against pair 1's baseline: comparable %v, regressed %v\n", c.Comparable, c.Regressed)
	fmt.Printf("false regressions: %d of %d same-release pairs; System A %s\n", bad, *pairs, map[bool]string{true: "regressed", false: "DID NOT regress"}[c.Regressed])
	if bad > 0 || !c.Regressed {
		os.Exit(1)
	}
}

// runOnce starts a specimen on addr and runs the demo's scenario (System
// B's admission bound) against it.
func runOnce(addr string, cfg specimen.Config, out string) (analysis.Document, error) {
	sp, err := specimen.StartLoopbackOn(context.Background(), cfg, addr)
	if err != nil {
		return analysis.Document{}, err
	}
	defer func() { _ = sp.Stop() }()
	_, port, _ := net.SplitHostPort(addr)
	s, err := scenarios.Parse(examples.DemoScenarioName, examples.DemoScenario, map[string]string{"port": port, "admission_bound": "500ms"})
	if err != nil {
		return analysis.Document{}, err
	}
	test, err := convert.New(s)
	if err != nil {
		return analysis.Document{}, err
	}
	res, err := runner.Run(context.Background(), runner.Options{Test: test, OutDir: out})
	if res == nil {
		return analysis.Document{}, err
	}
	return res.Document, nil
}

func optNum(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.2f", *p)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compare:", err)
	os.Exit(2)
}
