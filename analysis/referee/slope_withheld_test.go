package referee

import (
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A trap held by lost capacity reports no A from the wait's slope: the
// figure and its estimate's row are withheld with the reason; held by
// retries, both stand.
func TestSlopeAWithheldUnderLostCapacity(t *testing.T) {
	obs := func(effect analysis.SustainingEffect) *analysis.Observation {
		return &analysis.Observation{SustainedBy: &analysis.Sustaining{Effect: effect}, AmplificationFromSlope: analysis.Num(0.05),
			Estimates: []analysis.Estimate{{Name: "amplification_from_slope", Measured: analysis.Num(0.05), MeasuredLo: analysis.Num(-1), MeasuredHi: analysis.Num(1.2)}}}
	}
	lost := obs(analysis.SustainedByLostCapacity)
	withholdSlopeA(lost)
	if lost.AmplificationFromSlope != nil || lost.Estimates[0].Measured != nil || lost.Estimates[0].MeasuredHi != nil || lost.Estimates[0].Note == "" {
		t.Errorf("lost capacity: %+v %+v", lost.AmplificationFromSlope, lost.Estimates[0])
	}
	retries := obs(analysis.SustainedByRetries)
	withholdSlopeA(retries)
	if retries.AmplificationFromSlope == nil || retries.Estimates[0].Measured == nil {
		t.Errorf("retries: %+v", retries.Estimates[0])
	}
}
