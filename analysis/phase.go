package analysis

// Phase is the part of a run a moment belongs to: timeline.csv's phase
// column and a model's samples (warmup, spike, observe, on_trap), the
// chart's bands, and a run's live status (also preflight and done). Each
// is defined once, below, and every package uses the constant.
type Phase string

// The phases, in the order a run goes through them.
const (
	// PhasePreflight: nothing sent yet; Prometheus, the queries and the
	// brakes are being checked.
	PhasePreflight Phase = "preflight"
	// PhaseWarmup: baseline demand before the spike.
	PhaseWarmup Phase = "warmup"
	// PhaseSpike: k·λ for Δ.
	PhaseSpike Phase = "spike"
	// PhaseObserve: baseline demand again, watching for the way back.
	PhaseObserve Phase = "observe"
	// PhaseOnTrap: the scenario's on_trap action and its watch.
	PhaseOnTrap Phase = "on_trap"
	// PhaseDone: the run has stopped its load.
	PhaseDone Phase = "done"
)
