package request

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/vocab"
)

// TippingConfig is a sweep of the collapse law's service (docs/model.md,
// "The collapse law"): one exponential server, Poisson arrivals, a per-attempt
// timeout T, timed-out work completed anyway, retries sent the moment a
// timeout fires. Time is in service times (μ = 1), so loads are λ/μ.
type TippingConfig struct {
	// Theta is θ = μ·T, the timeout in service times.
	Theta float64
	// Attempts is R, attempts per request in total; 0 means unlimited (R → ∞).
	Attempts int
	// Loads are the λ/μ values swept; empty means defaultTippingLoads.
	Loads []float64
	// Runs is the number of seeds per load; zero means 20.
	Runs int
	// HorizonS is how long each run watches, in service times; zero means
	// max(20,000, 200·θ).
	HorizonS float64
	// CollapseWait is the wait, in timeouts, past which a run counts as
	// collapsed: every attempt then times out. With unlimited retries the
	// storm then feeds itself for good; with R attempts it may still come
	// back when λ < λ_r = μ/R. Zero means 20.
	CollapseWait float64
	// BackoffS is the delay from a timeout to its retry, in service times
	// (a constant backoff without jitter); zero means at once, the collapse
	// law's instant re-offer.
	BackoffS float64
	// Seed is the first run's seed; run i of every load uses Seed + i.
	Seed uint64
}

// TippingPoint is the outcome of the runs at one load.
type TippingPoint struct {
	Load      float64 `json:"load"` // λ/μ
	Runs      int     `json:"runs"`
	Collapsed int     `json:"collapsed"`
	// Fraction is Collapsed/Runs, the probability of collapse within the horizon.
	Fraction float64 `json:"fraction"`
	// MedianCollapse is the median time to collapse of the runs that
	// collapsed, in service times (1/μ); null when none did.
	MedianCollapse *float64 `json:"median_collapse_service_times"`
}

// TippingResult is a sweep beside the collapse law's closed forms.
type TippingResult struct {
	Theta    float64 `json:"theta"`
	Attempts int     `json:"attempts"` // 0: unlimited
	// Horizon is how long each run watched, in service times (1/μ).
	Horizon float64 `json:"horizon_service_times"`
	// CollapseWait is the wait that counts as collapse, in service times.
	CollapseWait float64 `json:"collapse_wait_service_times"`
	// Backoff is the delay from a timeout to its retry, in service times
	// (absent: at once).
	Backoff float64 `json:"backoff_service_times,omitempty"`
	Runs    int     `json:"runs"`
	// LambdaC is λ_c/μ and RhoStar ρ* (CollapseCeiling); LambdaCAsymptote is
	// the large-θ form 1 − (ln θ + 1)/θ.
	LambdaC          float64 `json:"lambda_c"`
	RhoStar          float64 `json:"rho_star"`
	LambdaCAsymptote float64 `json:"lambda_c_asymptote"`
	// RecoveryThreshold is λ_r/μ = 1/R (zero when unlimited).
	RecoveryThreshold float64 `json:"recovery_threshold"`
	// Hysteresis is (R − 1)·θ > 2 (HasHysteresis).
	Hysteresis bool `json:"hysteresis"`
	// Tipping50 is the load at which half the runs collapse, interpolated
	// between the sweep's points; the first load when it already collapses
	// half the runs; null when no load does.
	Tipping50 *float64       `json:"tipping_50"`
	Points    []TippingPoint `json:"points"`
}

// defaultTippingLoads is the default sweep: λ_c × 0.1 … 1.5, denser near λ_c.
func defaultTippingLoads(lambdaC float64) []float64 {
	var out []float64
	for _, f := range []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1, 1.05, 1.1, 1.2, 1.35, 1.5} {
		out = append(out, math.Round(f*lambdaC*1e4)/1e4)
	}
	return out
}

// TippingSweep runs the request-level model at each load and counts the
// runs that collapse within the horizon: how likely a fall is below λ_c
// (docs/model.md, "The collapse law"). Above λ_c every run should fall;
// with unlimited retries nothing brings it back.
func TippingSweep(ctx context.Context, cfg TippingConfig) (TippingResult, error) {
	if !(cfg.Theta > 0) || math.IsInf(cfg.Theta, 0) || cfg.Attempts < 0 || cfg.Runs < 0 || cfg.HorizonS < 0 || cfg.CollapseWait < 0 ||
		!(cfg.BackoffS >= 0) || math.IsInf(cfg.BackoffS, 0) {
		return TippingResult{}, fmt.Errorf("%w: tipping: θ %v must be positive, attempts %d, runs %d, horizon %v, collapse wait %v and backoff %v not negative",
			ErrConfig, cfg.Theta, cfg.Attempts, cfg.Runs, cfg.HorizonS, cfg.CollapseWait, cfg.BackoffS)
	}
	if cfg.Runs == 0 {
		cfg.Runs = 20
	}
	if cfg.HorizonS == 0 {
		cfg.HorizonS = math.Max(20000, 200*cfg.Theta)
	}
	if cfg.CollapseWait == 0 {
		cfg.CollapseWait = 20
	}
	lc, rhoStar := analysis.CollapseCeiling(1, cfg.Theta)
	res := TippingResult{
		Theta: cfg.Theta, Attempts: cfg.Attempts, Horizon: cfg.HorizonS, CollapseWait: cfg.CollapseWait * cfg.Theta, Backoff: cfg.BackoffS, Runs: cfg.Runs,
		LambdaC: lc, RhoStar: rhoStar, LambdaCAsymptote: analysis.CollapseCeilingAsymptote(1, cfg.Theta),
		RecoveryThreshold: analysis.RecoveryThreshold(1, cfg.Attempts), Hysteresis: analysis.HasHysteresis(cfg.Attempts, cfg.Theta),
	}
	loads := cfg.Loads
	if len(loads) == 0 {
		loads = defaultTippingLoads(lc)
	}
	retries := cfg.Attempts - 1 // unlimited: −1
	for _, load := range loads {
		if !(load > 0) || math.IsInf(load, 0) {
			return res, fmt.Errorf("%w: tipping: load %v must be positive", ErrConfig, load)
		}
		p := TippingPoint{Load: load, Runs: cfg.Runs}
		var times []float64
		for i := range cfg.Runs {
			run, err := Simulate(ctx, Config{
				Stages:        []analysis.DemandStage{{DurationS: cfg.HorizonS, RatePerS: load}},
				PodRatePerS:   1,
				ServiceTime:   vocab.ServiceExponential,
				TimeoutS:      cfg.Theta,
				Retry:         capRetries(retries, cfg.BackoffS),
				Seed:          cfg.Seed + uint64(i),
				SampleS:       cfg.HorizonS / 100,
				CollapseWaitS: res.CollapseWait,
			})
			if err != nil {
				return res, fmt.Errorf("tipping: load %v: %w", load, err)
			}
			switch {
			case run.Collapsed():
				p.Collapsed++
				times = append(times, run.CollapsedAtS)
			case run.Truncated:
				// A storm too large to follow is a collapse too.
				p.Collapsed++
				times = append(times, run.EndS)
			}
		}
		p.Fraction = float64(p.Collapsed) / float64(p.Runs)
		if len(times) > 0 {
			slices.Sort(times)
			p.MedianCollapse = analysis.Num(median(times))
		}
		res.Points = append(res.Points, p)
	}
	res.Tipping50 = tippingPoint(res.Points, 0.5)
	return res, nil
}

// tippingPoint interpolates the load at which the collapsed fraction first
// reaches level.
func tippingPoint(points []TippingPoint, level float64) *float64 {
	for i, p := range points {
		if p.Fraction < level {
			continue
		}
		if i == 0 {
			return analysis.Num(p.Load)
		}
		q := points[i-1]
		if p.Fraction == q.Fraction {
			return analysis.Num(p.Load)
		}
		return analysis.Num(q.Load + (level-q.Fraction)/(p.Fraction-q.Fraction)*(p.Load-q.Load))
	}
	return nil
}

// median of sorted values (NaN when empty).
func median(sorted []float64) float64 {
	n := len(sorted)
	switch {
	case n == 0:
		return math.NaN()
	case n%2 == 1:
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
