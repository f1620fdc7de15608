package scenarios

import (
	"time"

	"github.com/hashicorp/hcl/v2"
)

// LoadProfile is the demand the test offers (block "load"): baseline for
// Warmup, Spike.Multiplier × baseline for Spike.Duration, then baseline for
// Observe. (The type cannot be named Load: that is the function that reads
// a scenario file. The Scenario field is still Scenario.Load.)
type LoadProfile struct {
	Baseline float64       // λ, first attempts per second; required, > 0
	Warmup   time.Duration // baseline before the spike; default 20s
	Spike    Spike
	Observe  time.Duration // horizon after the spike ends; default 3m
}

// Spike is the overload (block "load.spike"); required.
type Spike struct {
	Multiplier float64       // k > 1
	Duration   time.Duration // Δ > 0
}

// Defaults of the load block's attributes.
const (
	// DefaultWarmup is load.warmup.
	DefaultWarmup = 20 * time.Second
	// DefaultObserve is load.observe.
	DefaultObserve = 3 * time.Minute
)

// The schemas of the load block and of its spike sub-block: attribute
// names are the snake_case of LoadProfile's and Spike's fields.
var (
	loadSchema = &hcl.BodySchema{
		Attributes: attrs("baseline", "warmup", "observe"),
		Blocks:     blocks("spike"),
	}
	spikeSchema = &hcl.BodySchema{Attributes: attrs("multiplier", "duration")}
)

// decodeLoad decodes the load block and its spike sub-block; with a fault
// the spike is optional (the fault triggers in its place).
func (d *decoder) decodeLoad(blk *hcl.Block, fault *Fault) LoadProfile {
	b := d.open("load", "load", blk.Body, blk.DefRange, schemaOf("load"))
	l := LoadProfile{
		Baseline: b.num("baseline", 0),
		Warmup:   b.duration("warmup", DefaultWarmup),
		Observe:  b.duration("observe", DefaultObserve),
	}
	b.require("baseline", `λ, the first attempts per second at baseline, e.g. baseline = 50.`)
	if fault != nil {
		l.Spike = faultSpike(fault)
	}
	if sb := b.one("spike", fault == nil, `the overload, e.g. spike { multiplier = 5  duration = "10s" }, or a fault block instead.`); sb != nil {
		s := d.open("spike", "load.spike", sb.Body, sb.DefRange, schemaOf("load.spike"))
		l.Spike = Spike{
			Multiplier: s.num("multiplier", 0),
			Duration:   s.duration("duration", 0),
		}
		s.require("multiplier", `k, demand during the spike as a multiple of baseline, e.g. multiplier = 5.`)
		s.require("duration", `Δ, how long the spike lasts, e.g. duration = "10s".`)
	}
	return l
}

// load checks the load block and its spike sub-block.
func (v *validator) load() {
	if !v.present("load") {
		return
	}
	l := &v.s.Load
	if v.d.src.has("load.baseline") {
		v.errorf(l.Baseline <= 0, "load.baseline", "Value out of range",
			"baseline is λ, first attempts per second, and must be greater than zero. Got %g.", l.Baseline)
		v.errorf(l.Baseline > MaxBaseline, "load.baseline", "Value out of range",
			"baseline is λ, first attempts per second, and may be at most 1e6 (a million per second). Got %g.", l.Baseline)
	}
	v.nonNegDur(l.Warmup, "load.warmup", "warmup", "the time at baseline before the spike")
	v.positiveDur(l.Observe, "load.observe", "observe", "the horizon after the spike ends")
	if !v.present("load.spike") {
		return
	}
	if v.d.src.has("load.spike.multiplier") {
		v.errorf(l.Spike.Multiplier <= 1, "load.spike.multiplier", "Value out of range",
			"multiplier is k, the spike's demand as a multiple of baseline, and must be greater than 1: a spike of k ≤ 1 is no overload. Got %g.", l.Spike.Multiplier)
		v.errorf(l.Spike.Multiplier > MaxMultiplier, "load.spike.multiplier", "Value out of range",
			"multiplier is k, the spike's demand as a multiple of baseline, and may be at most %d. Got %g.", MaxMultiplier, l.Spike.Multiplier)
	}
	if v.d.src.has("load.spike.duration") {
		v.positiveDur(l.Spike.Duration, "load.spike.duration", "duration", "Δ, the spike's length")
	}
}
