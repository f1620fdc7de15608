package runner

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/trigger-test/trigger/analysis"
)

// phaseMetric is the gauge trigger_phase{phase}: 1 for the phase the run
// is in (warmup, spike, observe, on_trap, done), 0 for the others, so a
// dashboard can shade the phases beside the service's own metrics. It has
// a registry of its own: the driver's collectors live in another, and a
// fleet has none in this process.
type phaseMetric struct {
	reg   *prometheus.Registry
	gauge *prometheus.GaugeVec
}

// runPhases are the phases trigger_phase reports.
var runPhases = []analysis.Phase{analysis.PhaseWarmup, analysis.PhaseSpike, analysis.PhaseObserve, analysis.PhaseOnTrap, analysis.PhaseDone}

func newPhaseMetric() *phaseMetric {
	m := &phaseMetric{reg: prometheus.NewRegistry(), gauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "trigger_phase",
		Help: "The run's phase: 1 for the current one (warmup, spike, observe, on_trap, done), 0 for the others.",
	}, []string{"phase"})}
	m.reg.MustRegister(m.gauge)
	for _, p := range runPhases {
		m.gauge.WithLabelValues(string(p)).Set(0)
	}
	return m
}

// set makes p the current phase; nil-safe.
func (m *phaseMetric) set(p analysis.Phase) {
	if m == nil {
		return
	}
	for _, q := range runPhases {
		v := 0.0
		if q == p {
			v = 1
		}
		m.gauge.WithLabelValues(string(q)).Set(v)
	}
}

// setPhase moves the run to phase p and says so on trigger_phase.
func (r *run) setPhase(p analysis.Phase) {
	r.phase = p
	r.phases.set(p)
}
