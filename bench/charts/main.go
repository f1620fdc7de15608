// Command charts times the run's charts (timeline.svg and timeline.png,
// runner/report) over timelines of 1,000 to 10,000 rows (a 3-hour observe
// has 10,800), and one row set with absurd values (1e308 from a hostile
// Prometheus), each rendered -repeat times; it prints the median of each.
//
//	go run ./bench/charts [-rows 1000,4000,10000] [-repeat 3]
//
// It exits 1 when a 10,000-row timeline takes 5 s or more for both charts.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/runner/report"
)

func main() {
	rowsFlag := flag.String("rows", "1000,4000,10000", "timeline lengths to render, comma-separated")
	repeat := flag.Int("repeat", 3, "renderings of each")
	from := flag.String("from", "", "a run's folder: tile its timeline.csv to each length, with its result.json, instead of a synthetic run")
	flag.Parse()
	fail := false
	fmt.Println("| rows | values | SVG | PNG | both |\n|---|---|---|---|---|")
	var sizes []int
	for _, f := range strings.Split(*rowsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "charts: bad -rows %q\n", f)
			os.Exit(2)
		}
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for _, absurd := range []bool{false, true} {
			if absurd && n != sizes[0] {
				continue
			}
			doc, rows := timeline(n, absurd)
			if *from != "" {
				doc, rows = tiled(*from, n, absurd)
			}
			render := func(png bool) func() error {
				return func() error {
					ch, err := report.TimelineChart(doc, rows)
					if err != nil {
						return err
					}
					if png {
						return ch.WritePNG(io.Discard)
					}
					return ch.WriteSVG(io.Discard)
				}
			}
			svg := median(*repeat, func() time.Duration { return timeIt(render(false)) })
			png := median(*repeat, func() time.Duration { return timeIt(render(true)) })
			what := "a run's"
			if absurd {
				what = "1e308 and Inf in the service's columns"
			}
			fmt.Printf("| %d | %s | %s | %s | %s |\n", n, what, svg.Round(time.Millisecond), png.Round(time.Millisecond), (svg + png).Round(time.Millisecond))
			if n >= 10000 && svg+png >= 5*time.Second {
				fail = true
			}
		}
	}
	if fail {
		os.Exit(1)
	}
}

// timeline is a trapped run's document and n one-second rows: warmup,
// a spike, then the failed state; absurd puts 1e308 and +Inf where a
// hostile Prometheus put them.
func timeline(n int, absurd bool) (analysis.Document, []analysis.TimelineRow) {
	doc := analysis.Document{Kind: "run", Verdict: analysis.VerdictTrapped,
		Scenario:    analysis.ScenarioSection{Name: "bench", TimeoutS: 1, PatienceS: 1},
		Observation: &analysis.Observation{Source: "run", SpikeStartS: analysis.Num(20), SpikeEndS: analysis.Num(30)}}
	rows := make([]analysis.TimelineRow, n)
	for i := range rows {
		t := float64(i)
		r := analysis.UnknownRow()
		r.TS, r.Phase = t, "observe"
		r.Sent, r.FirstDone, r.FirstOK, r.OK = 50+5*math.Sin(t), 50, 50, 50
		switch {
		case i < 20:
			r.Phase = "warmup"
		case i < 30:
			r.Phase, r.Sent = "spike", 250
		default:
			r.FirstOK, r.FirstTimeouts, r.Timeouts, r.Retries = 0, 50, 150, 100
		}
		r.IngressPerS, r.ServedPerS, r.WaitS = 3*r.Sent, 200, math.Max(0, 0.2*(t-25))
		if i%2 == 1 {
			// Prometheus answered every other second: the service's
			// lines break into short pieces.
			r.IngressPerS, r.ServedPerS, r.WaitS = math.NaN(), math.NaN(), math.NaN()
		}
		if absurd && i%7 == 3 {
			r.IngressPerS, r.ServedPerS, r.WaitS = 1e308, math.Inf(1), 1e308
		}
		rows[i] = r
	}
	return doc, rows
}

// tiled is a recorded run's document and its timeline repeated to n rows
// (each repetition after the last, in time order); absurd as timeline.
func tiled(dir string, n int, absurd bool) (analysis.Document, []analysis.TimelineRow) {
	b, err := os.ReadFile(filepath.Join(dir, report.ResultFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(2)
	}
	var doc analysis.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(2)
	}
	f, err := os.Open(filepath.Join(dir, report.TimelineFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(2)
	}
	defer f.Close()
	src, err := report.ReadTimeline(f)
	if err != nil || len(src) == 0 {
		fmt.Fprintln(os.Stderr, "charts: timeline:", err)
		os.Exit(2)
	}
	rows := make([]analysis.TimelineRow, n)
	for i := range rows {
		r := src[i%len(src)]
		r.TS = float64(i)
		if absurd && i%7 == 3 {
			r.IngressPerS, r.ServedPerS, r.WaitS = 1e308, math.Inf(1), 1e308
		}
		rows[i] = r
	}
	return doc, rows
}

func timeIt(f func() error) time.Duration {
	start := time.Now()
	if err := f(); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(1)
	}
	return time.Since(start)
}

func median(n int, f func() time.Duration) time.Duration {
	ds := make([]time.Duration, max(1, n))
	for i := range ds {
		ds[i] = f()
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}
