package campaign

import (
	"testing"

	"github.com/trigger-test/trigger/analysis"
)

// A repeated cell's tally: trials that could not tell are kept but not
// counted; two agreeing trials at 0.5 place the cell; the record carries
// every trial, P(trap) and the median A_fail of the trapped ones.
func TestOddsTally(t *testing.T) {
	yes, no := true, false
	var o odds
	rec := o.add(analysis.CampaignCell{Verdict: analysis.VerdictInconclusive, Folder: "t1"}, 1, 0.5)
	if rec.TrapProbability != nil || rec.Side != "" || o.placed(rec, 3) != nil {
		t.Errorf("after a trial that could not tell: %+v", rec)
	}
	rec = o.add(analysis.CampaignCell{Verdict: analysis.VerdictTrapped, Trapped: &yes, AFail: analysis.Num(3), Folder: "t2"}, 2, 0.5)
	if o.side != analysis.Undecided || rec.Trapped != nil || rec.Side != "undecided" {
		t.Errorf("after one trap: %+v", rec)
	}
	rec = o.add(analysis.CampaignCell{Verdict: analysis.VerdictTrapped, Trapped: &yes, AFail: analysis.Num(2), Folder: "t3"}, 3, 0.5)
	if s := o.placed(rec, 3); s == nil || *s != analysis.Above || rec.Trapped == nil || !*rec.Trapped || rec.Side != "above" ||
		len(rec.Trials) != 3 || rec.Trials[2].Seed != 3 || rec.Folder != "t3" || analysis.Value(rec.AFail) != 2.5 ||
		rec.TrapProbability.Count != 2 || rec.TrapProbability.Of != 2 {
		t.Errorf("after two traps: %+v", rec)
	}
	var one odds
	if s := one.placed(analysis.CampaignCell{Trapped: &no}, 1); s == nil || *s != analysis.Below {
		t.Errorf("one clean trial placed %v", s)
	}
}
