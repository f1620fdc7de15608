package runner

import (
	"encoding/json"

	"github.com/trigger-test/trigger/analysis"
)

// asRecorded is the plan as result.json records it: its figures rounded
// to what they mean (analysis.RoundFigure, applied when a document is
// written). The referee judges a live run from it, as `trigger judge`
// judges the run's folder from what it reads back, so that a replay gives
// the run's figures exactly, not one rounding apart. A plan that does not
// encode is returned as it is.
func asRecorded(plan analysis.Document) analysis.Document {
	b, err := json.Marshal(plan)
	if err != nil {
		return plan
	}
	var back analysis.Document
	if err := json.Unmarshal(b, &back); err != nil {
		return plan
	}
	return back
}
