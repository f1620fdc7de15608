package referee

import (
	"fmt"
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// What the clients saw decides before what the wait signals can show
// (docs/model.md, "What a trigger test measures", item 3): a service whose
// first attempts keep failing at baseline demand past the recovery budget
// did not recover within it, whatever a blind or slow wait signal says.

// observedOutage says, in words, that the clients saw the service fail
// past its recovery budget, at baseline demand; "" while they have not.
// With a budget: a second from the spike's end plus the budget that failed
// (analysis.TimelineRow.Failing), before any on_trap action changed
// demand: no recovery can then start within the budget (a recovery found
// earlier ends the run). At the end of the observation (final), without a
// budget or with one longer than the observation: the last second with
// completed first attempts still failing. Failures that are the requests'
// own fault are the run's to judge (clientFault), not a second's.
func (r *Referee) observedOutage(final bool) string {
	if math.IsNaN(r.spikeEnd) {
		return ""
	}
	to := math.Inf(1)
	if r.onTrap != nil {
		to = r.onTrap.at
	}
	rule := r.cfg.SuccessRatio
	budget := r.cfg.Gate.MaxRecoveryS
	if budget > 0 {
		for _, row := range r.rows {
			if row.TS >= r.spikeEnd+budget && row.TS < to && row.Failing(rule) {
				return fmt.Sprintf("the clients saw the service fail past the recovery budget of %s: first attempts at baseline demand still failed %s after the spike (%.0f %% of that second's succeeded)",
					analysis.FormatSeconds(budget), analysis.FormatSeconds(row.TS+1-r.spikeEnd), 100*row.FirstSuccessRatio())
			}
		}
	}
	if !final {
		return ""
	}
	for i := len(r.rows) - 1; i >= 0; i-- {
		row := r.rows[i]
		if row.TS >= to || row.FirstDone == 0 {
			continue
		}
		if row.TS < r.spikeEnd || !row.Failing(rule) {
			return ""
		}
		return fmt.Sprintf("the clients saw the service still failing when the observation ended, %s after the spike: first attempts at baseline demand failed to the end (%.0f %% succeeding in the last second)",
			analysis.FormatSeconds(row.TS+1-r.spikeEnd), 100*row.FirstSuccessRatio())
	}
	return ""
}

// clientFault says why the failures after the spike are the requests' own
// fault and not the service's ("" when they are not), with the kind of
// the inconclusive outcome: most failed first attempts were answered 401
// or 403 (KindCredentialsRefused: a token that expired during the run), or
// 4xx other than 429 (KindClientErrors: a wrong path, a refused request).
// No verdict about the service rests on them.
func (r *Referee) clientFault() (string, string) {
	if math.IsNaN(r.spikeStart) {
		return "", ""
	}
	var failed, client, auth float64
	for _, row := range r.rows {
		if row.TS+1 <= r.spikeStart {
			continue
		}
		failed += row.FirstFailed()
		client += analysis.ZeroIfUnknown(row.FirstClientErrors)
		auth += analysis.ZeroIfUnknown(row.FirstAuth)
	}
	switch {
	case failed == 0 || client <= 0.5*failed:
		return "", ""
	case auth > 0.5*failed:
		return fmt.Sprintf("%.0f of the %.0f first attempts that failed after the spike were answered 401 or 403, the requests' credentials refused (a token that expired during the run, a key revoked), not the service failing under load; check the target's credentials",
			auth, failed), KindCredentialsRefused
	}
	return fmt.Sprintf("%.0f of the %.0f first attempts that failed after the spike were answered with a client error (4xx other than 429): expired credentials, a wrong path or a refused request, not the service failing under load; check the target's URL, method and credentials",
		client, failed), KindClientErrors
}
