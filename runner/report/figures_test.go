package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/trigger-test/trigger/analysis"
)

// recordedDoc is one document the reports are checked against.
type recordedDoc struct {
	name string
	doc  analysis.Document
}

// recordedDocs are every run recorded in runner/testdata/runs (trapped,
// recovered, metastable, inconclusive, no trigger, a capacity fault) and
// the two older runs of testdata, with what no recorded run has built by
// editing one: a mix of requests, a run that stands by A from the wait's
// slope (A_fail not a measurement), a run stamped with trigger's version,
// a plan and a fluid model.
func recordedDocs(t *testing.T) []recordedDoc {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", "runs", "*", ResultFile))
	if err != nil || len(paths) < 8 {
		t.Fatalf("recorded runs: %v, %d found", err, len(paths))
	}
	var out []recordedDoc
	for _, p := range paths {
		doc, err := ReadResult(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, recordedDoc{filepath.Base(filepath.Dir(p)), doc})
	}
	for _, name := range fixtures {
		doc, _ := loadFixture(t, name)
		out = append(out, recordedDoc{"testdata/" + name, doc})
	}
	byName := func(name string) analysis.Document {
		doc, err := ReadResult(filepath.Join("..", "testdata", "runs", name, ResultFile))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}

	mix := byName("cli-recovered")
	mix.Scenario.Requests = []analysis.RequestShare{{Name: "quote", Weight: 8, Share: 0.8}, {Name: "search", Weight: 2, Share: 0.2}}
	mix.Observation.Requests = mixDoc(t).Observation.Requests
	out = append(out, recordedDoc{"mix (edited from cli-recovered)", mix})

	slope := byName("cli-trapped")
	a := &slope.Amplification
	a.Measured, a.MeasuredLo, a.MeasuredHi, a.Hidden = nil, nil, nil, nil
	a.MeasuredNote, a.MeasuredAtLeast = "the ingress counter sits behind the queue", analysis.Num(2.5)
	slope.Observation.AmplificationFromSlope, slope.Observation.AmplificationFromRecovery = analysis.Num(3.07), analysis.Num(2.8)
	a.Standing = &analysis.StandingAmplification{Value: 3.07, Lo: analysis.Num(2.59), Hi: analysis.Num(3.55), From: "A from the wait's slope", Note: "A_fail not measured"}
	out = append(out, recordedDoc{"A from the slope (edited from cli-trapped)", slope})

	stamped := byName("cli-trapped")
	stamped.TriggerVersion = "v1.4.2"
	out = append(out, recordedDoc{"version (edited from cli-trapped)", stamped})

	plan := byName("recovered")
	plan.Kind, plan.Observation, plan.Verdict, plan.RecoveryS, plan.Judging = "plan", nil, "", nil, nil
	plan.Amplification.Measured, plan.Amplification.Hidden, plan.Amplification.Standing = nil, nil, nil
	out = append(out, recordedDoc{"plan (edited from recovered)", plan})
	out = append(out, recordedDoc{"simulate", simulateDoc(t)})

	// The recorded runs predate the latency by phase: it is added here.
	lat := func(phase analysis.Phase, n int64, p50, p95, p99 float64, ok int64, okP50, okP95, okP99 float64) analysis.PhaseLatency {
		l := analysis.PhaseLatency{Phase: phase}
		l.Attempts, l.Succeeded.Attempts = n, ok
		if n > 0 {
			l.P50S, l.P95S, l.P99S = analysis.Num(p50), analysis.Num(p95), analysis.Num(p99)
		}
		if ok > 0 {
			l.Succeeded.P50S, l.Succeeded.P95S, l.Succeeded.P99S = analysis.Num(okP50), analysis.Num(okP95), analysis.Num(okP99)
		}
		return l
	}
	// Every phase: one where all succeeded, one where some failed, one
	// where none succeeded, and on_trap without a first attempt.
	failing := byName("cli-trapped")
	failing.Observation.LatencyByPhase = []analysis.PhaseLatency{
		lat(analysis.PhaseWarmup, 600, 0.012, 0.03, 0.041, 600, 0.012, 0.03, 0.041),
		lat(analysis.PhaseSpike, 1500, 0.25, 1, 1.02, 900, 0.2, 0.45, 0.49),
		lat(analysis.PhaseObserve, 200, 1, 1, 1, 0, 0, 0, 0),
		lat(analysis.PhaseOnTrap, 0, 0, 0, 0, 0, 0, 0, 0),
	}
	out = append(out, recordedDoc{"latency by phase, some failed (edited from cli-trapped)", failing})

	// Every first attempt succeeded: no successes' columns; a loopback
	// service's sub-millisecond latency and a latency over 2 minutes.
	succeeding := byName("cli-recovered")
	succeeding.Observation.LatencyByPhase = []analysis.PhaseLatency{
		lat(analysis.PhaseWarmup, 600, 0.000421, 0.00093, 0.0012, 600, 0.000421, 0.00093, 0.0012),
		lat(analysis.PhaseSpike, 3000, 0.8, 2.5, 131, 3000, 0.8, 2.5, 131),
		lat(analysis.PhaseObserve, 0, 0, 0, 0, 0, 0, 0, 0),
	}
	out = append(out, recordedDoc{"latency by phase, all succeeded (edited from cli-recovered)", succeeding})

	// A fault's spike is named the fault.
	fault := byName("fault-trapped")
	fault.Observation.LatencyByPhase = []analysis.PhaseLatency{
		lat(analysis.PhaseWarmup, 400, 0.015, 0.02, 0.025, 400, 0.015, 0.02, 0.025),
		lat(analysis.PhaseSpike, 500, 0.6, 1, 1, 120, 0.5, 0.9, 0.95),
		lat(analysis.PhaseObserve, 800, 1, 1, 1, 10, 0.7, 0.95, 0.99),
		lat(analysis.PhaseOnTrap, 300, 0.012, 0.014, 0.02, 300, 0.012, 0.014, 0.02),
	}
	out = append(out, recordedDoc{"latency by phase of a fault (edited from fault-trapped)", fault})

	// The model's odds beside the run's one draw: computed (a budget
	// stopping the runs), and not available with the reason; a plan with
	// them.
	withOdds := byName("cli-trapped")
	p44 := analysis.NewProportion(44, 200)
	withOdds.TrapProbability = &analysis.TrapProbability{Model: "request", Trapped: &p44, Runs: 200, FirstSeed: 1, RunsWanted: 200,
		AttemptsSimulated: 3_912_345, AttemptBudget: 5_000_000}
	out = append(out, recordedDoc{"model's odds (edited from cli-trapped)", withOdds})
	budgeted := byName("recovered")
	p0 := analysis.NewProportion(0, 17)
	budgeted.TrapProbability = &analysis.TrapProbability{Model: "request", Trapped: &p0, Runs: 17, FirstSeed: 1, RunsWanted: 200,
		AttemptsSimulated: 5_012_345, AttemptBudget: 5_000_000, Note: "the work budget of 5000000 simulated attempts allowed 17 of the 200 runs"}
	out = append(out, recordedDoc{"model's odds within a budget (edited from recovered)", budgeted})
	unavailable := byName("fault-trapped")
	unavailable.TrapProbability = &analysis.TrapProbability{Model: "request", FirstSeed: 1, RunsWanted: 200, AttemptBudget: 5_000_000,
		ModelUnavailable: "the request model keeps the service's pods fixed: the scenario's autoscaler, which adds pods after its dead time, is not in it"}
	out = append(out, recordedDoc{"model's odds not available (edited from fault-trapped)", unavailable})
	planOdds := plan
	planOdds.TrapProbability = withOdds.TrapProbability
	out = append(out, recordedDoc{"plan with the model's odds (edited from recovered)", planOdds})

	// A fleet's run has no latency by phase: the reports say so.
	fleet := byName("cli-recovered")
	fleet.Fleet = &analysis.FleetInfo{Engine: "local", Agents: 2}
	out = append(out, recordedDoc{"fleet (edited from cli-recovered)", fleet})
	return out
}

// row is one row of a report's table as the test expects or reads it:
// its label and its cells by column name ("measured", "predicted").
type row struct {
	label string
	cells map[string]string
}

// wantRow is a row whose label is label and whose measured and predicted
// columns show measured and predicted.
func wantRow(label, measured, predicted string) row {
	return row{label, map[string]string{"measured": measured, "predicted": predicted}}
}

// wantFigures is, table by table (the HTML page's section ids), every
// figure the reports show with the value the document gives it: restated
// here from the document's fields, not from the code that renders them.
func wantFigures(doc analysis.Document) map[string][]row {
	obs, a, p := doc.Observation, doc.Amplification, doc.Prediction
	want := map[string][]row{}
	add := func(table string, r row) { want[table] = append(want[table], r) }

	for _, f := range wantRunFacts(doc) {
		add("run", row{f[0], map[string]string{"measured": f[1]}})
	}
	for _, l := range a.Layers {
		probability, budget := "1", unknown
		if l.RetryProbability > 0 {
			probability = Num(l.RetryProbability)
		}
		if l.HasBudget {
			budget = "β = " + Num(l.Budget)
		}
		add("layers", row{l.Name, map[string]string{"retries R": strconv.Itoa(l.MaxRetries), "retry probability r": probability,
			"budget": budget, "factor": "×" + Num(l.Amplification)}})
	}
	if obs != nil && len(obs.Requests) > 1 {
		for _, q := range obs.Requests {
			ok := unknown
			if !math.IsNaN(q.SuccessRatio) {
				ok = fmt.Sprintf("%.1f %%", 100*q.SuccessRatio)
			}
			add("requests", row{q.Name, map[string]string{
				"share (expected)": fmt.Sprintf("%.1f %% (%.1f %%)", 100*q.Share, 100*q.ExpectedShare),
				"first attempts":   Num(q.FirstSent), "first ok": ok, "failed: timeout": Num(q.FirstTimeouts),
				"error (4xx of them)": Num(q.FirstErrors) + " (" + Num(q.FirstClientErrors) + ")",
				"connect":             Num(q.FirstConnect), "other": Num(q.FirstOther)}})
		}
	}

	add("verdict", wantRow("Verdict", string(doc.Verdict), string(p.Verdict)))
	add("verdict", wantRow("P(trap): this run's draw, the model's odds", wantOneDraw(doc), wantModelOdds(doc.TrapProbability)))
	add("verdict", wantRow("Recovery after the spike", recoveryMeasured(doc), recoveryPredicted(doc)))
	if p.RecoveryWithRetryLagS != nil {
		add("verdict", wantRow("Recovery, counting the retries' lag", "", analysis.FormatSeconds(*p.RecoveryWithRetryLagS)))
	}
	if obs != nil && obs.PredictedRecoveryS != nil {
		at := obs.PredictedRecoveryFrom
		if at == "" {
			at = "the measured A_fail and ρ"
		}
		add("verdict", wantRow("Recovery from the formula at "+at, "", analysis.FormatSeconds(*obs.PredictedRecoveryS)))
	}
	if obs != nil {
		add("verdict", wantRow("Peak wait", secPtr(obs.PeakWaitS), analysis.FormatSeconds(p.PeakWaitS)))
		add("verdict", wantRow("Wait at the end", secPtr(obs.FinalWaitS), ""))
		add("verdict", wantRow("Wait slope at the end (A·ρ − 1)", withInterval(obs.WaitSlope, obs.WaitSlopeLo, obs.WaitSlopeHi, "s/s"), Num(p.AmplifiedUtilization-1)+" s/s"))
	}
	if s := onTrapText(doc); s != "" {
		add("verdict", wantRow("on_trap", s, ""))
	}

	aClient, trap, amplified := unknown, unknown, unknown
	if obs != nil {
		aClient = numPtr(obs.AmplificationClient)
		if a.Measured != nil && *a.Measured > 0 {
			trap = Num(1 / *a.Measured)
		}
		if a.Measured != nil && obs.Utilization != nil {
			amplified = Num(*a.Measured * *obs.Utilization)
		}
	}
	add("amplification", wantRow("A_client: attempts the clients send per first attempt", aClient, Num(a.Client)))
	add("amplification", wantRow("A_fail: attempts reaching the service per first attempt", aFailMeasured(a), Num(a.Predicted)))
	add("amplification", wantRow("Hidden factor A_fail / A_client", numPtr(a.Hidden), Num(a.Predicted/a.Client)))
	standing := unknown
	if st := a.Standing; st != nil {
		standing = withInterval(&st.Value, st.Lo, st.Hi, "") + ", " + st.From
	}
	add("amplification", wantRow("A, as the run stands by it", standing, Num(a.Predicted)))
	add("amplification", wantRow("Trap threshold 1/A (utilization at which a trigger traps)", trap, Num(p.TrapThreshold)))
	add("amplification", wantRow("A·ρ (trapped at 1 or more)", amplified, Num(p.AmplifiedUtilization)))
	if obs != nil && (obs.AmplificationFromSlope != nil || obs.AmplificationFromRecovery != nil) {
		add("amplification", wantRow("A from the wait's slope, (slope + 1)/ρ", numPtr(obs.AmplificationFromSlope), ""))
		add("amplification", wantRow("A from the recovery time, formula inverted", numPtr(obs.AmplificationFromRecovery), ""))
	}

	tr := doc.Trigger
	valid := "no: the spike cannot push the wait past the timeout"
	if tr.Valid {
		valid = "yes"
	}
	t0 := unknown
	if obs != nil {
		t0 = secPtr(obs.T0S)
	}
	add("trigger", wantRow("Spike is a trigger, (k·ρ − 1)·Δ > τ_out", "", valid))
	add("trigger", wantRow("Overload (k·ρ − 1)·Δ", "", Num(tr.OverloadS)+" s"))
	add("trigger", wantRow("Client timeout τ_out", "", analysis.FormatSeconds(tr.TimeoutS)))
	add("trigger", wantRow("Margin, overload / τ_out", "", Num(tr.Margin)))
	add("trigger", wantRow("t0: wait crosses τ_out after the spike starts", t0, secPtr(tr.T0S)))
	add("trigger", wantRow("Smallest trigger multiple k for this Δ", "", numPtr(p.MinMultiplier)))
	add("trigger", wantRow("Smallest trigger length Δ for this k", "", secPtr(p.MinSpikeS)))

	if obs != nil {
		for _, r := range wantLatency(doc) {
			add("latency", r)
		}
		total := func(label, v string) { add("totals", row{label, map[string]string{"measured": v}}) }
		total("Attempts timed out", numPtr(obs.TimedOut))
		total("Attempts refused (503/429)", numPtr(obs.Refused))
		if s := firstFailedText(obs); s != "" {
			total("First attempts failed", s)
		}
		total("Requests failed (every attempt)", numPtr(obs.FailedRequests))
		total("Work lost, seconds of demand", secPtr(obs.LostWorkS))
		total("Served after the client left (retry debt)", numPtr(obs.Abandoned))
		if obs.Dropped != nil || obs.RefusedInFlight != nil {
			total("First attempts the driver dropped (lag bound)", numPtr(obs.Dropped))
			total("Attempts refused at max_in_flight", numPtr(obs.RefusedInFlight))
		}
		if obs.EndS > 0 {
			total("Length of the run", analysis.FormatSeconds(obs.EndS))
		}
		for _, e := range obs.Estimates {
			add("estimates", row{e.Label, map[string]string{
				"measured":  withInterval(e.Measured, e.MeasuredLo, e.MeasuredHi, e.Unit),
				"predicted": withUnit(e.Predicted, e.Unit),
			}})
		}
	}
	return want
}

// wantOneDraw is what a run measured of P(trap): its verdict, one draw;
// no draw when it could not tell; nothing for a plan or a model.
func wantOneDraw(doc analysis.Document) string {
	switch {
	case doc.Kind != "run":
		return ""
	case doc.Verdict == "" || doc.Verdict == analysis.VerdictInconclusive:
		return "this run could not tell: no draw"
	}
	return "this run: " + string(doc.Verdict) + " — one draw; repeated trials measure the odds"
}

// wantModelOdds is the model's P(trap) as the document's trap_probability
// gives it: the share trapped and its 95 % interval in percent (whole,
// one decimal below 10 and above 90), the runs; the reason when the model
// gave none; "not computed" when the document has no such section.
func wantModelOdds(tp *analysis.TrapProbability) string {
	pct := func(x float64) string {
		v := 100 * x
		switch {
		case v == 0 || v == 100:
			return strconv.FormatFloat(v, 'f', 0, 64)
		case v < 10 || v > 90:
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	switch {
	case tp == nil:
		return "not computed"
	case tp.Trapped == nil:
		return "not available: " + tp.ModelUnavailable
	}
	p := tp.Trapped
	s := fmt.Sprintf("%s %% (95 %%: %s–%s %%), %d of %d seeded runs of the %s model trapped", pct(p.P), pct(p.Lo), pct(p.Hi), p.Count, p.Of, tp.Model)
	if tp.Note != "" {
		s += " (" + tp.Note + ")"
	}
	return s
}

// wantLatency is the latency table's rows, one a phase of the document's
// latency_by_phase in its order, labelled by the phase ("fault" for a
// fault's spike): the first attempts and their p50, p95 and p99 in ms
// below a second, else in s, "–" when null; and, when some phase's first
// attempts did not all succeed, the same over those that succeeded.
func wantLatency(doc analysis.Document) []row {
	obs := doc.Observation
	if obs == nil {
		return nil
	}
	latency := func(p *float64) string {
		switch {
		case p == nil:
			return "–"
		case *p < 1:
			return Num(*p*1000) + " ms"
		}
		return Num(*p) + " s"
	}
	someFailed := false
	for _, l := range obs.LatencyByPhase {
		someFailed = someFailed || l.Succeeded.Attempts != l.Attempts
	}
	var out []row
	for _, l := range obs.LatencyByPhase {
		name := string(l.Phase)
		if l.Phase == analysis.PhaseSpike && doc.Scenario.Fault != nil {
			name = "fault"
		}
		cells := map[string]string{"first attempts": strconv.FormatInt(l.Attempts, 10),
			"p50": latency(l.P50S), "p95": latency(l.P95S), "p99": latency(l.P99S)}
		if someFailed {
			s := l.Succeeded
			cells["succeeded"] = strconv.FormatInt(s.Attempts, 10)
			cells["p50 succeeded"], cells["p95 succeeded"], cells["p99 succeeded"] = latency(s.P50S), latency(s.P95S), latency(s.P99S)
		}
		out = append(out, row{name, cells})
	}
	return out
}

// latencyNotMeasuredWanted reports whether the reports must say, in place
// of the latency table, that a fleet's run did not measure it.
func latencyNotMeasuredWanted(doc analysis.Document) bool {
	return doc.Observation != nil && len(doc.Observation.LatencyByPhase) == 0 && doc.Fleet != nil
}

// checkSameColumns checks that a table shows the wanted rows in their
// order, each with exactly the wanted row's columns: none missing, none
// the test does not know.
func checkSameColumns(t *testing.T, report, table string, got, want []row) {
	t.Helper()
	var gl, wl []string
	for _, r := range got {
		gl = append(gl, r.label)
	}
	for _, r := range want {
		wl = append(wl, r.label)
	}
	if !slices.Equal(gl, wl) {
		t.Errorf("%s, table %s: rows %q, want %q in that order", report, table, gl, wl)
	}
	for i, g := range got {
		if i >= len(want) {
			return
		}
		var gc, wc []string
		for k := range g.cells {
			gc = append(gc, k)
		}
		for k := range want[i].cells {
			wc = append(wc, k)
		}
		slices.Sort(gc)
		slices.Sort(wc)
		if !slices.Equal(gc, wc) {
			t.Errorf("%s, table %s, row %q: columns %q, want %q", report, table, g.label, gc, wc)
		}
	}
}

// wantRunFacts are the label and value of each fact that places the
// document: the run's start to the second in UTC, its target, the trigger
// that ran it; "–" for what the document does not say. A plan or a model
// has no start, and names a trigger only when it records one.
func wantRunFacts(doc analysis.Document) [][2]string {
	or := func(s string) string {
		if s == "" {
			return unknown
		}
		return s
	}
	var out [][2]string
	if doc.Kind == "run" {
		started := unknown
		if doc.Observation != nil && doc.Observation.StartedAt != "" {
			at, err := time.Parse(time.RFC3339Nano, doc.Observation.StartedAt)
			if err != nil {
				panic(err)
			}
			started = at.UTC().Format("2006-01-02 15:04:05") + " UTC"
		}
		out = append(out, [2]string{"Started", started})
	}
	out = append(out, [2]string{"Target", or(doc.Scenario.Target)})
	if doc.Kind == "run" || doc.TriggerVersion != "" {
		out = append(out, [2]string{"trigger version", or(doc.TriggerVersion)})
	}
	return out
}

// htmlTables reads the page's tables in the section (or element) with
// each id: each row's label (its first cell) and its other cells named by
// the table's header ("measured", "predicted"; "measured" for a table
// without a header), and every header met, to check the columns' order.
func htmlTables(t *testing.T, page string) (map[string][]row, [][]string) {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	text := func(n *html.Node) string {
		var b strings.Builder
		var walk func(*html.Node)
		walk = func(n *html.Node) {
			if n.Type == html.TextNode {
				b.WriteString(n.Data)
			}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c)
			}
		}
		walk(n)
		return strings.TrimSpace(b.String())
	}
	children := func(n *html.Node, tag string) []*html.Node {
		var out []*html.Node
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.Data == tag {
				out = append(out, c)
			}
		}
		return out
	}
	tables := map[string][]row{}
	var headers [][]string
	var readTable func(id string, table *html.Node)
	readTable = func(id string, table *html.Node) {
		var header []string
		var rows []*html.Node
		for _, body := range children(table, "tbody") {
			rows = append(rows, children(body, "tr")...)
		}
		for _, tr := range rows {
			if ths := children(tr, "th"); len(ths) > 0 {
				header = nil
				for _, th := range ths {
					header = append(header, text(th))
				}
				headers = append(headers, header)
				continue
			}
			tds := children(tr, "td")
			if len(tds) < 2 {
				continue
			}
			r := row{label: text(tds[0]), cells: map[string]string{}}
			for i, td := range tds[1:] {
				name := "measured"
				if header != nil {
					name = header[i+1]
				} else if i > 0 {
					name = "value " + string(rune('0'+i))
				}
				r.cells[name] = text(td)
			}
			tables[id] = append(tables[id], r)
		}
	}
	var walk func(n *html.Node, id string)
	walk = func(n *html.Node, id string) {
		if n.Type == html.ElementNode {
			for _, at := range n.Attr {
				if at.Key == "id" {
					id = at.Val
				}
			}
			if n.Data == "table" {
				readTable(id, n)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, id)
		}
	}
	walk(root, "")
	return tables, headers
}

// checkTableRows checks that the table shows each wanted row, with the wanted
// value in each column, and no figure the test does not know.
func checkTableRows(t *testing.T, report, table string, got, want []row) {
	t.Helper()
	byLabel := map[string]row{}
	for _, r := range got {
		if _, dup := byLabel[r.label]; dup {
			t.Errorf("%s, table %s: two rows %q", report, table, r.label)
		}
		byLabel[r.label] = r
	}
	known := map[string]bool{}
	for _, w := range want {
		known[w.label] = true
		g, ok := byLabel[w.label]
		if !ok {
			t.Errorf("%s, table %s: no row %q", report, table, w.label)
			continue
		}
		for col, v := range w.cells {
			if g.cells[col] != v {
				t.Errorf("%s, table %s, row %q, column %s: shows %q, the document gives %q", report, table, w.label, col, g.cells[col], v)
			}
		}
	}
	for _, g := range got {
		if !known[g.label] {
			t.Errorf("%s, table %s: row %q is no figure the test knows", report, table, g.label)
		}
	}
}

// checkColumnOrder checks that every table with a measured and a
// predicted column shows them in the same order: measured first.
func checkColumnOrder(t *testing.T, report string, headers [][]string) {
	t.Helper()
	for _, h := range headers {
		m, p := -1, -1
		for i, c := range h {
			switch c {
			case "measured":
				m = i
			case "predicted":
				p = i
			}
		}
		if m >= 0 && p >= 0 && m > p {
			t.Errorf("%s: a table's columns are %q: predicted before measured, where the other tables show measured first", report, h)
		}
	}
}

// Every figure report.html shows in its tables is the document's: for
// every recorded run (and the kinds no recorded run has, built from one),
// each row of the verdict, amplification, trigger, totals and estimates
// tables shows, in its measured and predicted columns, the value the
// document gives that figure, and no table shows a figure the test does
// not know; measured comes before predicted in every table. The latency
// table shows a row a phase of latency_by_phase, in its order, every cell
// the document's (the successes' columns exactly when some first attempt
// failed); a fleet's run says it was not measured.
func TestHTMLFiguresAreTheDocuments(t *testing.T) {
	for _, r := range recordedDocs(t) {
		t.Run(r.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeHTML(&buf, r.doc, nil, errors.New("not drawn in this test"), ""); err != nil {
				t.Fatal(err)
			}
			page := buf.String()
			got, headers := htmlTables(t, page)
			want := wantFigures(r.doc)
			for table, rows := range want {
				checkTableRows(t, "report.html", table, got[table], rows)
			}
			for table := range got {
				if _, ok := want[table]; !ok && table != "wait" {
					t.Errorf("report.html: table %q is none the test knows", table)
				}
			}
			checkColumnOrder(t, "report.html", headers)
			checkSameColumns(t, "report.html", "latency", got["latency"], want["latency"])
			said := strings.Contains(htmlText(t, page, "latency"), latencyNotMeasured)
			if wantSaid := latencyNotMeasuredWanted(r.doc); said != wantSaid {
				t.Errorf("report.html says the latency by phase was not measured: %v, want %v", said, wantSaid)
			}
			if got, want := htmlItems(t, page, "advice"), r.doc.Advice(); !slices.Equal(got, want) {
				t.Errorf("report.html's advice is %q, the document's %q", got, want)
			}
		})
	}
}

// htmlText is the text of the section (or element) with the id, "" when
// the page has none.
func htmlText(t *testing.T, page, id string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode {
			for _, at := range n.Attr {
				if at.Key == "id" {
					in = at.Val == id
				}
			}
		}
		if in && n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(root, false)
	return b.String()
}

// htmlItems is the text of each list item in the section with the id.
func htmlItems(t *testing.T, page, id string) []string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(n *html.Node, in bool)
	walk = func(n *html.Node, in bool) {
		if n.Type == html.ElementNode {
			for _, at := range n.Attr {
				if at.Key == "id" {
					in = at.Val == id
				}
			}
			if in && n.Data == "li" {
				var b strings.Builder
				for c := n.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.TextNode {
						b.WriteString(c.Data)
					}
				}
				out = append(out, b.String())
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, in)
		}
	}
	walk(root, false)
	return out
}

// mdCells splits a Markdown table line into its cells, unescaped as
// GitHub shows them ("\|" is a pipe inside a cell).
func mdCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line):
			b.WriteByte(line[i])
			b.WriteByte(line[i+1])
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// mdReport is report.md read back: its tables by the heading above them
// ("summary" for the one under the headline), every table's header, the
// line that places the run, and the items under each heading.
type mdReport struct {
	tables  map[string][]row
	headers [][]string
	placed  string
	items   map[string][]string
}

func readMarkdown(text string) mdReport {
	r := mdReport{tables: map[string][]row{}, items: map[string][]string{}}
	lines := strings.Split(text, "\n")
	heading := "summary"
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case strings.HasPrefix(line, "### "):
			heading = strings.TrimPrefix(line, "### ")
		case strings.HasPrefix(line, "- "):
			r.items[heading] = append(r.items[heading], strings.TrimPrefix(line, "- "))
		case strings.HasPrefix(line, "Started: ") || strings.HasPrefix(line, "Target: "):
			r.placed = line
		case strings.HasPrefix(line, "|") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|---"):
			header := mdCells(line)
			r.headers = append(r.headers, header)
			for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				cells := mdCells(lines[i])
				g := row{label: cells[0], cells: map[string]string{}}
				for j, c := range cells[1:] {
					g.cells[header[j+1]] = c
				}
				r.tables[heading] = append(r.tables[heading], g)
			}
		}
	}
	return r
}

// mdRows escapes the wanted rows as report.md writes them.
func mdRows(want []row) []row {
	var out []row
	for _, w := range want {
		r := row{label: md(w.label), cells: map[string]string{}}
		for k, v := range w.cells {
			r.cells[k] = md(v)
		}
		out = append(out, r)
	}
	return out
}

// The pull-request comment's figures are the document's: for every
// recorded run, the summary under the headline shows the verdict, the
// recovery, A_fail, the A the run stands by (when not A_fail), the hidden
// factor, the work lost, the refusals, the failed first attempts and the
// on_trap action with the values and labels report.html gives them, the
// estimates table the document's estimates, measured before predicted,
// the latency table report.html's (a fleet's run: not measured), and no
// table the test does not know;
// the line under the headline places the run (start, target, trigger);
// and the advice section is the document's advice (doc.Advice), item by
// item.
func TestMarkdownFiguresAreTheDocuments(t *testing.T) {
	for _, r := range recordedDocs(t) {
		t.Run(r.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteMarkdown(&buf, r.doc); err != nil {
				t.Fatal(err)
			}
			got := readMarkdown(buf.String())
			want := wantFigures(r.doc)
			doc, obs, a := r.doc, r.doc.Observation, r.doc.Amplification

			byLabel := map[string]row{}
			for _, table := range []string{"verdict", "amplification", "totals"} {
				for _, w := range want[table] {
					byLabel[w.label] = w
				}
			}
			pick := func(labels ...string) []row {
				var out []row
				for _, l := range labels {
					if w, ok := byLabel[l]; ok {
						out = append(out, w)
					}
				}
				return out
			}
			summary := pick("Verdict", "P(trap): this run's draw, the model's odds", "Recovery after the spike", "A_fail: attempts reaching the service per first attempt")
			if a.Standing != nil && a.Standing.From != "A_fail" {
				summary = append(summary, pick("A, as the run stands by it")...)
			}
			summary = append(summary, pick("Hidden factor A_fail / A_client")...)
			lost := unknown
			if obs != nil && (obs.LostWorkS != nil || obs.FailedRequests != nil) {
				var parts []string
				if obs.LostWorkS != nil {
					parts = append(parts, analysis.FormatSeconds(*obs.LostWorkS)+" of demand")
				}
				if obs.FailedRequests != nil {
					parts = append(parts, Num(*obs.FailedRequests)+" requests failed")
				}
				lost = strings.Join(parts, ", ")
			}
			summary = append(summary, row{"Work lost", map[string]string{"measured": lost, "predicted": ""}})
			summary = append(summary, pick("Attempts refused (503/429)", "First attempts failed", "on_trap")...)
			summary = mdRows(summary)
			summary[0].cells["measured"] = "**" + summary[0].cells["measured"] + "**"
			checkTableRows(t, "report.md", "summary", got.tables["summary"], summary)
			if len(want["estimates"]) > 0 {
				checkTableRows(t, "report.md", "estimates", got.tables["Measured vs predicted"], mdRows(want["estimates"]))
			} else if len(got.tables["Measured vs predicted"]) > 0 {
				t.Error("report.md: estimates the document does not have")
			}
			if len(want["requests"]) > 0 {
				checkTableRows(t, "report.md", "requests", got.tables["Requests"], mdRows(want["requests"]))
			}
			if len(want["latency"]) > 0 {
				checkTableRows(t, "report.md", "latency", got.tables[latencyTitle], mdRows(want["latency"]))
				checkSameColumns(t, "report.md", "latency", got.tables[latencyTitle], want["latency"])
			}
			for heading := range got.tables {
				known := map[string]bool{"summary": true, "Wait signal": true}
				known["Measured vs predicted"] = len(want["estimates"]) > 0
				known["Requests"] = len(want["requests"]) > 0
				known[latencyTitle] = len(want["latency"]) > 0
				if !known[heading] {
					t.Errorf("report.md: table under %q is none the test knows", heading)
				}
			}
			said := slices.Contains(strings.Split(buf.String(), "\n"), md(latencyNotMeasured))
			if wantSaid := latencyNotMeasuredWanted(doc); said != wantSaid {
				t.Errorf("report.md says the latency by phase was not measured: %v, want %v", said, wantSaid)
			}
			checkColumnOrder(t, "report.md", got.headers)

			var placed []string
			for _, f := range wantRunFacts(doc) {
				placed = append(placed, md(f[0])+": "+md(f[1]))
			}
			if want := strings.Join(placed, " · "); got.placed != want {
				t.Errorf("report.md places the run as %q, the document as %q", got.placed, want)
			}
			var advice []string
			for _, s := range doc.Advice() {
				advice = append(advice, md(s))
			}
			if !slices.Equal(got.items["Advice"], advice) {
				t.Errorf("report.md's advice is %q, the document's %q", got.items["Advice"], advice)
			}
		})
	}
}

// junit.xml's properties are the document's, each under its name, in
// plain units ("null" for an unknown number): the run's start, target and
// trigger version when the document has them, the verdict, the recovery,
// A_fail, the prediction, and each phase's first-attempt count and
// percentiles (latency_<phase>_p50_s, latency_<phase>_succeeded_p50_s…).
func TestJUnitPropertiesAreTheDocuments(t *testing.T) {
	// Numbers to 6 significant digits, whole numbers of a million or more
	// whole (what they mean, not the float's last bits).
	plain := func(p *float64) string {
		if p == nil {
			return "null"
		}
		if math.Abs(*p) >= 1e6 {
			return strconv.FormatFloat(math.Round(*p), 'f', -1, 64)
		}
		six, _ := strconv.ParseFloat(strconv.FormatFloat(*p, 'g', 6, 64), 64)
		return strconv.FormatFloat(six, 'g', -1, 64)
	}
	for _, r := range recordedDocs(t) {
		t.Run(r.name, func(t *testing.T) {
			doc, obs := r.doc, r.doc.Observation
			want := map[string]string{
				"kind": doc.Kind, "verdict": string(doc.Verdict), "recovery_s": plain(doc.RecoveryS),
				"A_fail": plain(doc.Amplification.Measured), "predicted_verdict": string(doc.Prediction.Verdict),
				"predicted_recovery_s": plain(doc.Prediction.RecoveryS), "A_predicted": plain(&doc.Amplification.Predicted),
				"hidden_factor": plain(doc.Amplification.Hidden),
			}
			if obs != nil {
				want["projected_recovery_s"] = plain(obs.ProjectedRecoveryS)
				want["interrupted"] = strconv.FormatBool(obs.Interrupted)
				if obs.Inconclusive != "" {
					want["inconclusive"] = obs.Inconclusive
				}
				if obs.StartedAt != "" {
					want["started_at"] = obs.StartedAt
				}
			}
			if doc.Scenario.File != "" {
				want["scenario_file"] = doc.Scenario.File
			}
			if doc.Scenario.Target != "" {
				want["target"] = doc.Scenario.Target
			}
			if doc.TriggerVersion != "" {
				want["trigger_version"] = doc.TriggerVersion
			}
			if tp := doc.TrapProbability; tp != nil && tp.Trapped != nil {
				want["trap_probability"] = plain(&tp.Trapped.P)
				want["trap_probability_lo"], want["trap_probability_hi"] = plain(&tp.Trapped.Lo), plain(&tp.Trapped.Hi)
				want["trap_probability_runs"] = strconv.Itoa(tp.Trapped.Of)
			} else if tp != nil {
				want["trap_probability"], want["trap_probability_unavailable"] = "null", tp.ModelUnavailable
			}
			if obs != nil {
				for _, l := range obs.LatencyByPhase {
					ph := string(l.Phase)
					for prefix, p := range map[string]analysis.LatencyPercentiles{"latency_" + ph + "_": l.LatencyPercentiles, "latency_" + ph + "_succeeded_": l.Succeeded} {
						want[prefix+"attempts"] = strconv.FormatInt(p.Attempts, 10)
						want[prefix+"p50_s"], want[prefix+"p95_s"], want[prefix+"p99_s"] = plain(p.P50S), plain(p.P95S), plain(p.P99S)
					}
				}
			}
			var buf bytes.Buffer
			if err := WriteJUnit(&buf, doc); err != nil {
				t.Fatal(err)
			}
			var suites junitSuites
			if err := xml.Unmarshal(buf.Bytes(), &suites); err != nil || len(suites.Suites) != 1 {
				t.Fatalf("junit.xml: %v, %d suites", err, len(suites.Suites))
			}
			got := map[string]string{}
			for _, p := range suites.Suites[0].Properties {
				if _, dup := got[p.Name]; dup {
					t.Errorf("property %s twice", p.Name)
				}
				got[p.Name] = p.Value
			}
			for k, v := range want {
				if g, ok := got[k]; !ok || g != v {
					t.Errorf("property %s is %q (present %v), the document gives %q", k, g, ok, v)
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("property %s is none the test knows", k)
				}
			}
		})
	}
}
