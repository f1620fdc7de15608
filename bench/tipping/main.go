// Command tipping measures the tipping curve, the probability of collapse
// against load, of the specimen configured as the collapse law's server
// (docs/model.md, "The collapse law": one M/M/1 queue, timed-out work
// served, retries after a backoff, no cancellation) and driven by
// trigger's own driver, beside the request model's curve for the same
// setup and the points the issue quotes from the published work
// (bench/tipping/README.md): with patient timeouts (θ = 10) every trial
// collapses at the ceiling λ_c; with tight ones (θ = 2) half of them at
// two thirds of it.
//
//	go run ./bench/tipping [-trials 10] [-model-runs 200] [-mu-tight 250] [-mu-patient 500]
//
// Every trial is a fresh specimen on loopback, bounded by its horizon
// (2,000 service times at θ = 2, 4,000 at θ = 10: 8 s each at the default
// rates) and stopped at its collapse. The clients' timeout is T plus the
// loopback path's own latency L₀, measured at each load; a trial in which
// the driver stalled is void and run again. About 9 minutes at the
// defaults. It exits 1 when a published point lies outside its measured
// interval.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"time"
)

func main() {
	trials := flag.Int("trials", 10, "trials per load on the specimen")
	modelRuns := flag.Int("model-runs", 200, "request-model runs per load")
	muTight := flag.Float64("mu-tight", 250, "service rate μ at θ = 2, per second (time compression: T = 2/μ, horizon 2,000/μ)")
	muPatient := flag.Float64("mu-patient", 500, "service rate μ at θ = 10, per second (T = 10/μ, horizon 4,000/μ)")
	flag.Parse()
	if *trials < 1 || *modelRuns < 1 || !(*muTight >= 50 && *muTight <= 5000) || !(*muPatient >= 50 && *muPatient <= 5000) {
		fmt.Fprintln(os.Stderr, "tipping: -trials and -model-runs must be positive, -mu-tight and -mu-patient within [50, 5000]")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	missed, modelOut := 0, 0
	for _, c := range curves(*muTight, *muPatient) {
		fmt.Println(c.header())
		fmt.Println(tableHead)
		pts, err := measure(ctx, c, *trials, *modelRuns, func(p point) { fmt.Println(p.row()) })
		if err != nil {
			fmt.Fprintln(os.Stderr, "tipping:", err)
			os.Exit(1)
		}
		for _, p := range pts {
			if !p.Holds() {
				missed++
			}
			if !p.ModelHolds() {
				modelOut++
			}
		}
		fmt.Println()
	}
	fmt.Printf("published points outside the measured interval: %d; the model's fraction outside it: %d (%s)\n",
		missed, modelOut, time.Since(start).Round(time.Second))
	if missed > 0 {
		os.Exit(1)
	}
}

// curves are the two tipping curves of the benchmark, at service rates
// muTight (θ = 2) and muPatient (θ = 10) per second.
func curves(muTight, muPatient float64) []curve {
	nan := math.NaN()
	base := setup{Attempts: 10, Backoff: 10, CollapseWait: 20}
	tight, patient := base, base
	tight.Mu, tight.Theta, tight.Horizon = muTight, 2, 2000
	patient.Mu, patient.Theta, patient.Horizon = muPatient, 10, 4000
	return []curve{
		{Name: "patient", Setup: patient,
			Fractions: []float64{0.5, 0.8, 0.9, 1, 1.3},
			Published: []float64{nan, nan, nan, 1, 1}},
		{Name: "tight", Setup: tight,
			Fractions: []float64{0.3, 0.5, 2.0 / 3, 0.8, 1, 1.3},
			Published: []float64{nan, nan, 0.5, nan, 1, 1}},
	}
}
