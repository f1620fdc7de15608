package analysis

import "fmt"

// ObserveTooShort says why a run of the planned test would end
// inconclusive though the model has a verdict: the spike triggers, observe
// ends before a trap can show (Prediction.JudgeAfterS after the spike),
// and the model does not see the service back within observe, so the run
// can neither see it recover nor judge it trapped. "" otherwise. `plan`
// exits 3 (inconclusive) on it, as the run would.
func (doc Document) ObserveTooShort() string {
	p, sc := doc.Prediction, doc.Scenario
	if !doc.Trigger.Valid || p.JudgeAfterS == nil || *p.JudgeAfterS <= sc.ObserveS {
		return ""
	}
	if p.Verdict == VerdictRecovered && p.RecoveryS != nil && *p.RecoveryS <= sc.ObserveS {
		return ""
	}
	back := "the model sees the service failed beyond it"
	if p.RecoveryS != nil {
		back = fmt.Sprintf("the model sees the service back only after %s", FormatSeconds(*p.RecoveryS))
	}
	return fmt.Sprintf("observe = %s ends before a trap can show (%s after the spike), and %s; lengthen observe",
		FormatSeconds(sc.ObserveS), FormatSeconds(*p.JudgeAfterS), back)
}
