package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// JUnitFile is the JUnit XML report in a run's folder, for CI systems.
const JUnitFile = "junit.xml"

// junitSuites is the document root, <testsuites>.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitSuite is the one <testsuite> of a trigger test.
type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  *junitText      `xml:"system-out"`
}

// junitText is an element's text as CDATA, so line breaks stay readable.
type junitText struct {
	Text string `xml:",cdata"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure"`
	Skipped   *junitSkipped `xml:"skipped"`
}

// junitSkipped marks a case neither passed nor failed (a compared figure
// neither run measured).
type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the gate as JUnit XML: one <testsuite name="trigger
// <scenario>"> with one <testcase> per gate criterion (doc.Gate.Criteria),
// a <failure> for each that failed, and <properties> with the run's
// start (started_at, RFC 3339 as the document has it), its target, the
// trigger that ran it (trigger_version), the verdict, recovery_s and
// A_fail (numbers in plain units, "null" when unknown), the model's
// P(trap) (trap_probability, its 95 % interval's _lo and _hi, and _runs;
// "null" and trap_probability_unavailable with the reason when the model
// gave none); a property the
// document does not have is left out. The first attempts' latency by
// phase is a property per phase (the document's name: warmup, spike,
// observe, on_trap) and figure: latency_<phase>_attempts,
// latency_<phase>_p50_s, _p95_s and _p99_s, and the same for those that
// succeeded (latency_<phase>_succeeded_p50_s); a fleet's run, which has
// no latency by phase, has none of them. A
// no-trigger verdict is a failed "trigger" criterion already; a document
// whose gate was never evaluated gets one failed "gate" case, so CI never
// reads an empty suite as a pass. The suite's time is the run's length in
// seconds.
func WriteJUnit(w io.Writer, doc analysis.Document) error {
	name := scenarioName(doc)
	class := "trigger." + strings.Join(strings.Fields(name), "_")
	obs := doc.Observation
	suite := junitSuite{Name: "trigger " + name, Time: "0"}
	if obs != nil {
		suite.Time = strconv.FormatFloat(obs.EndS, 'f', 3, 64)
	}
	prop := func(n, v string) { suite.Properties = append(suite.Properties, junitProperty{n, v}) }
	prop("kind", doc.Kind)
	if obs != nil && obs.StartedAt != "" {
		prop("started_at", obs.StartedAt)
	}
	if doc.Scenario.Target != "" {
		prop("target", doc.Scenario.Target)
	}
	if doc.TriggerVersion != "" {
		prop("trigger_version", doc.TriggerVersion)
	}
	prop("verdict", string(doc.Verdict))
	prop("recovery_s", xmlNum(doc.RecoveryS))
	prop("A_fail", xmlNum(doc.Amplification.Measured))
	prop("predicted_verdict", string(doc.Prediction.Verdict))
	prop("predicted_recovery_s", xmlNum(doc.Prediction.RecoveryS))
	prop("A_predicted", xmlNum(&doc.Amplification.Predicted))
	prop("hidden_factor", xmlNum(doc.Amplification.Hidden))
	if tp := doc.TrapProbability; tp != nil {
		if p := tp.Trapped; p != nil {
			prop("trap_probability", xmlNum(analysis.Num(p.P)))
			prop("trap_probability_lo", xmlNum(&p.Lo))
			prop("trap_probability_hi", xmlNum(&p.Hi))
			prop("trap_probability_runs", strconv.Itoa(p.Of))
		} else {
			prop("trap_probability", "null")
			prop("trap_probability_unavailable", tp.ModelUnavailable)
		}
	}
	if obs != nil {
		prop("projected_recovery_s", xmlNum(obs.ProjectedRecoveryS))
		prop("interrupted", strconv.FormatBool(obs.Interrupted))
		if obs.Inconclusive != "" {
			prop("inconclusive", obs.Inconclusive)
		}
	}
	if doc.Scenario.File != "" {
		prop("scenario_file", doc.Scenario.File)
	}
	if obs != nil {
		for _, l := range obs.LatencyByPhase {
			latencyProps(prop, "latency_"+string(l.Phase)+"_", l.LatencyPercentiles)
			latencyProps(prop, "latency_"+string(l.Phase)+"_succeeded_", l.Succeeded)
		}
	}

	criteria := doc.Gate.Criteria
	if len(criteria) == 0 {
		criteria = []analysis.GateCriterion{{Name: "gate", Detail: "the gate was not evaluated"}}
	}
	for _, c := range criteria {
		tc := junitCase{Name: c.Name, ClassName: class, Time: "0"}
		switch {
		case c.NotJudged:
			// max_trap_probability on one run: neither passed nor failed.
			tc.Skipped = &junitSkipped{Message: c.Detail}
			suite.Skipped++
		case !c.Passed:
			tc.Failure = &junitFailure{Message: c.Detail, Type: "gate", Text: c.Detail}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, tc)
	}
	suite.Tests = len(suite.Cases)
	var out []string
	if obs != nil {
		if obs.VerdictReason != "" {
			out = append(out, "verdict: "+obs.VerdictReason)
		}
		for _, f := range obs.Findings {
			out = append(out, "finding: "+f)
		}
	}
	if len(out) > 0 {
		suite.SystemOut = &junitText{strings.Join(out, "\n")}
	}

	root := junitSuites{Name: "trigger", Tests: suite.Tests, Failures: suite.Failures, Time: suite.Time, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return fmt.Errorf("junit: %w", err)
	}
	return nil
}

// latencyProps sets a phase's first-attempt count and percentiles,
// seconds, each under prefix: prefix+"attempts", prefix+"p50_s" ("null"
// with no attempts).
func latencyProps(prop func(n, v string), prefix string, p analysis.LatencyPercentiles) {
	prop(prefix+"attempts", strconv.FormatInt(p.Attempts, 10))
	prop(prefix+"p50_s", xmlNum(p.P50S))
	prop(prefix+"p95_s", xmlNum(p.P95S))
	prop(prefix+"p99_s", xmlNum(p.P99S))
}

// xmlNum is a nullable number for a property value: shortest exact form,
// "null" when unknown.
func xmlNum(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(analysis.RoundFigure(*p), 'g', -1, 64) // 6 significant digits
}
