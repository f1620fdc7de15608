package analysis

// DemandStage is one piece of a piecewise-constant demand schedule.
type DemandStage struct {
	DurationS float64 `json:"duration_s"` // seconds
	RatePerS  float64 `json:"rate_per_s"` // first attempts per second
}

// SpikeSchedule is the demand of a trigger test: baseline λ for warmupS,
// k·λ for spikeS, then λ for observeS (seconds).
func SpikeSchedule(baseline, k, warmupS, spikeS, observeS float64) []DemandStage {
	return []DemandStage{
		{DurationS: warmupS, RatePerS: baseline},
		{DurationS: spikeS, RatePerS: k * baseline},
		{DurationS: observeS, RatePerS: baseline},
	}
}

// PeakStage returns the start and end, seconds from the schedule's start, of
// the first stage with the highest rate: a model's spike when its
// configuration names none.
func PeakStage(stages []DemandStage) (start, end float64) {
	best, t := -1.0, 0.0
	for _, s := range stages {
		if s.RatePerS > best {
			best, start, end = s.RatePerS, t, t+s.DurationS
		}
		t += s.DurationS
	}
	return start, end
}
