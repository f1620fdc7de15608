package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/analysis"
	"github.com/trigger-test/trigger/convert"
	"github.com/trigger-test/trigger/examples/specimen/specimen"
)

// The fault tests' commands are this test binary run again as a helper
// (TestMain): "post URL LOG" posts to URL and appends "post UNIXNANO URL"
// to LOG; "ok LOG" appends; "fail LOG" appends and exits 1; "hang LOG"
// appends and sleeps a minute.
const faultHelperEnv = "TRIGGER_FAULT_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(guardHelperEnv) != "" {
		// The test binary as `trigger fault-guard JOURNAL`.
		if err := RunFaultGuard(os.Stdin, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		os.Exit(0)
	}
	if os.Getenv(faultHelperEnv) != "" {
		os.Exit(faultHelper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func faultHelper(args []string) int {
	if len(args) < 2 {
		return 2
	}
	verb, logPath := args[0], args[len(args)-1]
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 3
	}
	fmt.Fprintf(f, "%s %d %s\n", verb, time.Now().UnixNano(), strings.Join(args[1:len(args)-1], " "))
	f.Close()
	switch verb {
	case "post":
		resp, err := http.Post(args[1], "text/plain", nil)
		if err != nil {
			return 4
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 5
		}
		return 0
	case "ok":
		return 0
	case "fail":
		return 1
	case "hang":
		time.Sleep(time.Minute)
		return 0
	}
	return 2
}

// helperArgv is the HCL list of an argv running the helper.
func helperArgv(t *testing.T, args ...string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	q := []string{strconv.Quote(exe)}
	for _, a := range args {
		q = append(q, strconv.Quote(a))
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// logged is one line of the helper's log: what ran and when.
type logged struct {
	verb string
	at   time.Time
	rest string
}

func readHelperLog(t *testing.T, path string) []logged {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []logged
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), " ", 3)
		ns, _ := strconv.ParseInt(parts[1], 10, 64)
		l := logged{verb: parts[0], at: time.Unix(0, ns)}
		if len(parts) > 2 {
			l.rest = parts[2]
		}
		out = append(out, l)
	}
	return out
}

// faultCase is a capacity trigger against a specimen of two pods of
// 100/s: the fault sets the pods' rate to capacity × 100/s for duration,
// through the specimen's /admin/capacity.
type faultCase struct {
	baseline          float64
	retries           int
	capacity          float64
	duration          string
	start, stop       string // HCL argv lists; "" = post to the specimen
	extra             string
	maxDuration       string
	timeout, fTimeout string
}

func (fc faultCase) scenario(t *testing.T, url, log string) string {
	start, stop := fc.start, fc.stop
	if start == "" {
		start = helperArgv(t, "post", fmt.Sprintf("%s/admin/capacity?factor=%g", url, fc.capacity), log)
	}
	if stop == "" {
		stop = helperArgv(t, "post", url+"/admin/capacity?factor=1", log)
	}
	if fc.maxDuration == "" {
		fc.maxDuration = "3m"
	}
	if fc.timeout == "" {
		fc.timeout = "1s"
	}
	if fc.fTimeout == "" {
		fc.fTimeout = "5s"
	}
	return fmt.Sprintf(`
scenario "fault" { max_duration = %q }
target {
  url         = "%s/work"
  allow_hosts = ["127.0.0.1"]
}
client {
  timeout  = %q
  arrivals = "uniform"
  retry {
    max_retries = %d
    on          = ["timeout"]
  }
}
service { capacity = 200 }
load {
  baseline = %g
  warmup   = "3s"
  observe  = "90s"
}
fault "slow-pods" {
  start    = %s
  stop     = %s
  duration = %q
  capacity = %g
  timeout  = %q
}
prometheus {
  address         = "embedded"
  scrape          = ["%s/metrics"]
  scrape_interval = "500ms"
  ingress         = "sum(rate(specimen_ingress_total[3s]))"
  first_attempts  = "sum(rate(specimen_ingress_total{kind=\"first\"}[3s]))"
  served          = "sum(rate(specimen_served_total[3s]))"
  abandoned       = "sum(rate(specimen_served_total{result=\"abandoned\"}[3s]))"
}
recovery { hold = "3s" }
%s
`, fc.maxDuration, url, fc.timeout, fc.retries, fc.baseline, start, stop, fc.duration, fc.capacity, fc.fTimeout, url, fc.extra)
}

// runFault runs fc against a fresh specimen with opts' changes, and
// returns the result, the error, the helper's log and the specimen.
func runFault(t *testing.T, ctx context.Context, fc faultCase, change func(*Options)) (*Result, error, []logged, *specimen.Server) {
	t.Helper()
	url, srv := startSpecimen(t, specimen.Config{Pods: 2, PodRate: 100})
	log := filepath.Join(t.TempDir(), "helper.log")
	t.Setenv(faultHelperEnv, "1")
	s := parseSource(t, "fault.hcl", fc.scenario(t, url, log))
	opts := Options{Test: testOf(t, s), OutDir: t.TempDir(), Logf: t.Logf, QueryWarmup: 1500 * time.Millisecond, StateDir: t.TempDir(), Consent: consentAll}
	if change != nil {
		change(&opts)
	}
	res, err := runLogged(t, ctx, opts)
	return res, err, readHelperLog(t, log), srv
}

// A capacity drop to 40 % for 10 s at λ = 120/s (ρ = 0.6): with one retry
// (A·ρ = 1.2) the service is trapped, as plan predicts; without retries
// (A·ρ = 0.6) it recovers, within 25 % of the formula's time. Both times
// the stop ran, once, and result.json says the fault was put back.
func TestE2ECapacityDrop(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		retries int
		want    analysis.Verdict
	}{
		{1, analysis.VerdictTrapped},
		{0, analysis.VerdictRecovered},
	} {
		t.Run(string(tc.want), func(t *testing.T) {
			fc := faultCase{baseline: 120, retries: tc.retries, capacity: 0.4, duration: "10s", extra: `on_trap { action = "drop" }`}
			res, err, log, _ := runFault(t, t.Context(), fc, nil)
			if res == nil {
				t.Fatalf("run: %v", err)
			}
			d := res.Document
			if d.Prediction.Verdict != tc.want || d.Verdict != tc.want {
				t.Fatalf("predicted %s, judged %s (%s); want %s", d.Prediction.Verdict, d.Verdict, d.Observation.VerdictReason, tc.want)
			}
			if tc.want == analysis.VerdictRecovered {
				pred := analysis.Value(d.Prediction.RecoveryS)
				if got := analysis.Value(d.RecoveryS); !(math.Abs(got/pred-1) <= 0.25) {
					t.Errorf("recovered in %.1f s; the formula gives %.1f s (%+.0f %%)", got, pred, 100*(got/pred-1))
				}
			}
			if len(log) != 2 || log[0].verb != "post" || !strings.Contains(log[1].rest, "factor=1") {
				t.Errorf("helper log %+v; want the start, then the stop once", log)
			}
			f := d.Observation.Fault
			if f == nil || !f.Restored || f.StartedS == nil || f.StoppedS == nil || *f.StoppedS-*f.StartedS < 9.5 {
				t.Errorf("result's fault %+v; want restored after about 10 s", f)
			}
			// timeline.csv's fault column holds 1 for the seconds it held.
			held := 0
			for _, row := range res.Timeline {
				if row.Fault == 1 {
					held++
				}
			}
			if held < 9 || held > 11 {
				t.Errorf("the fault column is 1 in %d rows; want about 10", held)
			}
			svg, err := os.ReadFile(filepath.Join(res.OutDir, "timeline.svg"))
			if err != nil || !strings.Contains(string(svg), "fault slow-pods") || !strings.Contains(string(svg), "fault stopped") {
				t.Errorf("the chart does not mark the fault's start and stop (%v)", err)
			}
		})
	}
}

// On every end but its own, the stop command runs within a second of the
// event and the run says so: an interrupt (the context cancelled, as
// Ctrl-C, SIGTERM and SIGHUP do), max_duration, the abort file.
func TestFaultIsPutBackOnEveryEnd(t *testing.T) {
	skipShort(t)
	for _, tc := range []struct {
		name string
		fc   faultCase
	}{
		{"interrupt", faultCase{}},
		{"max-duration", faultCase{}},
		{"abort-file", faultCase{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fc := tc.fc
			fc.baseline, fc.capacity, fc.duration = 60, 0.5, "30s"
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			abort := filepath.Join(t.TempDir(), "abort")
			var event time.Time
			go func() {
				// The event comes 7 s in: the fault (after a 3 s warmup) is
				// in place.
				time.Sleep(7 * time.Second)
				event = time.Now()
				switch tc.name {
				case "interrupt":
					cancel()
				case "abort-file":
					_ = os.WriteFile(abort, nil, 0o644)
				}
			}()
			res, err, log, _ := runFault(t, ctx, fc, func(o *Options) {
				o.AbortFile = abort
				if tc.name == "max-duration" {
					// A scenario's max_duration may not cut its own run short:
					// the limit is set here, 8 s.
					o.Test.Run.MaxDuration = 8 * time.Second
				}
			})
			if res == nil {
				t.Fatalf("run: %v", err)
			}
			if len(log) != 2 {
				t.Fatalf("helper log %+v; want the start and the stop", log)
			}
			stopAt := log[1].at
			if tc.name == "max-duration" {
				event = log[0].at.Add(5 * time.Second) // the start ran 3 s into the run's 8
			}
			if stopAt.Sub(event) > time.Second {
				t.Errorf("the stop ran %s after the event; want within 1 s", stopAt.Sub(event))
			}
			f := res.Document.Observation.Fault
			if f == nil || !f.Restored {
				t.Errorf("result's fault %+v; want restored", f)
			}
			var re *Error
			if errors.As(err, &re) && re.Kind == KindHarness {
				t.Errorf("exit as a harness error (%v) though the stop succeeded", err)
			}
		})
	}
}

// A stop command that fails, or hangs past its timeout, is exit 4 with
// the command to run by hand, and no hang; the journal says failed, and
// restore runs the stop again.
func TestFaultStopThatFailsIsLoud(t *testing.T) {
	skipShort(t)
	for _, verb := range []string{"fail", "hang"} {
		t.Run(verb, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "stop.log")
			fc := faultCase{baseline: 60, capacity: 0.9, duration: "2s", fTimeout: "2s", start: `["true"]`, stop: helperArgv(t, verb, log)}
			started := time.Now()
			res, err, _, _ := runFault(t, t.Context(), fc, nil)
			var re *Error
			if !errors.As(err, &re) || re.Kind != KindHarness || !errors.Is(err, ErrFaultNotRestored) || !strings.Contains(err.Error(), verb) {
				t.Fatalf("err %v; want a harness error (exit 4): the fault may still be in place, with the stop command", err)
			}
			if time.Since(started) > 40*time.Second {
				t.Errorf("the run took %s", time.Since(started))
			}
			if res == nil || res.Document.Observation.Fault == nil || res.Document.Observation.Fault.Restored {
				t.Fatalf("result's fault: want not restored")
			}
			j, jerr := readJournal(filepath.Join(res.OutDir, FaultJournalFile))
			if jerr != nil || j.State != faultFailed {
				t.Errorf("journal %+v (%v); want failed", j, jerr)
			}
		})
	}
}

// A run killed after its fault's start leaves a pending journal and a
// registry entry: a new fault against the same target is refused (unless
// Force), `restore` runs the stop once, a second restore is a no-op, and
// then the target is free.
func TestRestoreRunsAPendingStopOnce(t *testing.T) {
	out, state := t.TempDir(), t.TempDir()
	log := filepath.Join(t.TempDir(), "helper.log")
	t.Setenv(faultHelperEnv, "1")
	exe, _ := os.Executable()
	const target = "http://127.0.0.1:9"
	fr := newFaultRun(convert.Fault{Name: "f", Start: []string{"true"}, Stop: []string{exe, "ok", log}, Dir: t.TempDir(),
		Duration: time.Second, Timeout: 5 * time.Second, Target: target}, out, state, t.Logf)
	if err := fr.start(); err != nil {
		t.Fatal(err)
	}
	// The run is killed here: nothing runs the stop.
	if err := CheckPendingFault(state, target); !errors.Is(err, ErrFaultPending) || !strings.Contains(err.Error(), out) {
		t.Fatalf("CheckPendingFault = %v; want pending, naming %s", err, out)
	}
	if err := CheckPendingFault(state, "http://127.0.0.1:10"); err != nil {
		t.Errorf("another target: %v", err)
	}
	ran, err := Restore(out, state, t.Logf)
	if !ran || err != nil {
		t.Fatalf("restore: ran %v, %v", ran, err)
	}
	ran, err = Restore(out, state, t.Logf)
	if ran || err != nil {
		t.Fatalf("second restore: ran %v, %v; want a no-op", ran, err)
	}
	if l := readHelperLog(t, log); len(l) != 1 || l[0].verb != "ok" {
		t.Errorf("helper log %+v; want the stop once", l)
	}
	if err := CheckPendingFault(state, target); err != nil {
		t.Errorf("after restore: %v", err)
	}
}
