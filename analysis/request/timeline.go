package request

import (
	"math"

	"github.com/trigger-test/trigger/analysis"
)

// maxAttemptColumns bounds the timeline's attempt columns: retries past the
// 15th are counted in the last one.
const maxAttemptColumns = 16

// timeline counts a request-level run by sample (one row per
// SampleS): arrivals by attempt number, refusals, timeouts and first-attempt
// goodput at the attempt's arrival; service and abandoned work at their
// completion; the wait w = backlog/C at each row's end. Rows are allocated
// once for the whole horizon, so memory is bounded by its length. Counts
// become timeline rows of per-second rates when the run finishes.
type timeline struct {
	rows   []analysis.RowCounts
	work   []float64 // [i]: hidden copies arriving in row i (A_fail's work adds them)
	sample float64
	inv    float64 // 1/sample
	cols   int
	// lateServed counts service that completes past the last row.
	lateServed, lateAbandoned float64

	nextRow      int     // the first row not flushed
	nextBoundary float64 // its end
	edges        []float64
	edge         int        // next stage edge
	spike        [2]float64 // the spike's start and end, seconds
	fail         *analysis.FailWindow
	settle       int // rows A_fail's window keeps from the edges of a failed state
	peak         float64
}

func newTimeline(cfg Config, horizon float64) *timeline {
	n := max(1, int(math.Ceil(horizon/cfg.SampleS-1e-9)))
	cols := maxAttemptColumns
	if r := cfg.Retry.MaxRetries; cfg.Retry.New == nil {
		cols = 1
	} else if r >= 0 && r+1 < cols {
		cols = r + 1
	}
	tl := &timeline{rows: make([]analysis.RowCounts, n), work: make([]float64, n), sample: cfg.SampleS, inv: 1 / cfg.SampleS, cols: cols,
		spike: [2]float64{cfg.SpikeStartS, cfg.SpikeEndS}}
	slab := make([]float64, n*cols)
	for i := range tl.rows {
		tl.rows[i].Attempts = slab[i*cols : (i+1)*cols : (i+1)*cols]
	}
	tl.nextBoundary = cfg.SampleS
	t := 0.0
	for _, s := range cfg.Stages[:len(cfg.Stages)-1] {
		t += s.DurationS
		tl.edges = append(tl.edges, t)
	}
	// A_fail is measured away from the edges of a failed state, where the
	// retry streams have settled: R retry cycles of τ_out plus backoff.
	retries := cfg.Retry.MaxRetries
	if retries < 0 || retries > 10 {
		retries = 10
	}
	if cfg.Retry.New == nil {
		retries = 0
	}
	settleS := float64(retries)*(cfg.TimeoutS+cfg.Retry.MaxDelayS) + cfg.TimeoutS
	tl.settle = max(1, int(math.Ceil(settleS*tl.inv)))
	tl.fail = analysis.NewFailWindow(tl.settle)
	return tl
}

func (tl *timeline) index(t float64) int {
	i := int(t * tl.inv)
	if i >= len(tl.rows) {
		i = len(tl.rows) - 1
	}
	return i
}

// row returns the row of time t (the last row for later times).
func (tl *timeline) row(t float64) *analysis.RowCounts { return &tl.rows[tl.index(t)] }

// arrival counts a client attempt arriving at t and returns its row.
func (tl *timeline) arrival(t float64, attempt int32) *analysis.RowCounts {
	row := &tl.rows[tl.index(t)]
	col := int(attempt) - 1
	if col >= tl.cols {
		col = tl.cols - 1
	}
	row.Attempts[col]++
	return row
}

// hidden counts a copy a hidden layer adds at t.
func (tl *timeline) hidden(t float64) { tl.work[tl.index(t)]++ }

// served counts a job whose service completes at done; late means its
// client had given up (abandoned work, retry debt).
func (tl *timeline) served(done float64, late bool) {
	i := int(done * tl.inv)
	if i >= len(tl.rows) {
		tl.lateServed++
		if late {
			tl.lateAbandoned++
		}
		return
	}
	tl.rows[i].Served++
	if late {
		tl.rows[i].Abandoned++
	}
}

// flush closes the next row: the wait at its end, and its share of A_fail.
func (tl *timeline) flush(srv station) {
	tl.close(srv, tl.nextBoundary)
	tl.nextRow++
	tl.nextBoundary = float64(tl.nextRow+1) * tl.sample
}

// close sets the wait of row nextRow at time end and feeds A_fail's window.
func (tl *timeline) close(srv station, end float64) {
	i := tl.nextRow
	if i >= len(tl.rows) {
		return
	}
	row := &tl.rows[i]
	row.Wait = srv.wait(end)
	row.MaxWait = math.Max(row.MaxWait, row.Wait)
	tl.peak = math.Max(tl.peak, row.MaxWait)
	for tl.edge < len(tl.edges) && tl.edges[tl.edge] <= end {
		tl.fail.Edge()
		tl.edge++
	}
	attempts := 0.0
	for _, a := range row.Attempts {
		attempts += a
	}
	failing := attempts > 0 && row.TimedOut+row.Refused >= attempts
	tl.fail.Add(attempts+tl.work[i], row.Attempts[0], failing)
}

// finish closes the rows up to end, cuts the timeline there and turns
// counts into timeline rows of per-second rates. It returns the rows and
// the service completed within the run and after it (admitted work still
// queued at end, exact when end falls on a row boundary).
func (tl *timeline) finish(srv station, end float64) (rows []analysis.TimelineRow, served, abandoned, queued float64) {
	for tl.nextBoundary <= end+1e-9 && tl.nextRow < len(tl.rows) {
		tl.flush(srv)
	}
	n := min(len(tl.rows), int(math.Ceil(end*tl.inv-1e-9)))
	if tl.nextRow < n {
		tl.close(srv, end) // a partial last row
	}
	queued = tl.lateServed
	for i := range tl.rows {
		if i < n {
			served += tl.rows[i].Served
			abandoned += tl.rows[i].Abandoned
		} else {
			queued += tl.rows[i].Served
		}
	}
	rows = make([]analysis.TimelineRow, n)
	slab := make([]float64, n*tl.cols)
	for i := range rows {
		t := float64(i) * tl.sample
		span := math.Min(tl.sample, end-t)
		if span <= 0 {
			span = tl.sample
		}
		rows[i] = tl.rows[i].Row(t, span, tl.spike[0], tl.spike[1], slab[i*tl.cols:(i+1)*tl.cols:(i+1)*tl.cols])
	}
	tl.rows = tl.rows[:n]
	return rows, served, abandoned, queued
}
