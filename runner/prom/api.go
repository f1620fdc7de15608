package prom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/util/annotations"

	"github.com/trigger-test/trigger/internal/queryshape"
)

// Error types of the Prometheus HTTP API and their status codes.
const (
	errBadData  = "bad_data"    // 400
	errExec     = "execution"   // 422
	errTimeout  = "timeout"     // 503
	errCanceled = "canceled"    // 499
	errInternal = "internal"    // 500
	errNotFound = "not_found"   // 404
	errMethod   = "bad_request" // 405 (not a Prometheus type; only for methods)
)

// statusClientClosed is the status Prometheus answers a cancelled query with.
const statusClientClosed = 499

// apiError is an error answer of the API.
type apiError struct {
	typ string
	err error
}

// status returns the HTTP status code Prometheus uses for the error type.
func (e *apiError) status() int {
	switch e.typ {
	case errBadData:
		return http.StatusBadRequest
	case errExec:
		return http.StatusUnprocessableEntity
	case errTimeout:
		return http.StatusServiceUnavailable
	case errCanceled:
		return statusClientClosed
	case errNotFound:
		return http.StatusNotFound
	case errMethod:
		return http.StatusMethodNotAllowed
	default:
		return http.StatusInternalServerError
	}
}

// response is the envelope of every API answer, in Prometheus' format.
type response struct {
	Status    string   `json:"status"`
	Data      any      `json:"data,omitempty"`
	ErrorType string   `json:"errorType,omitempty"`
	Error     string   `json:"error,omitempty"`
	Warnings  []string `json:"warnings,omitempty"`
	Infos     []string `json:"infos,omitempty"`
}

// queryData is the data of a query answer.
type queryData struct {
	ResultType parser.ValueType `json:"resultType"`
	Result     any              `json:"result"`
}

// buildInfo is the data of /api/v1/status/buildinfo.
type buildInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision"`
	Branch    string `json:"branch"`
	BuildUser string `json:"buildUser"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
}

// promVersion is the Prometheus release whose engine (module v0.316.0)
// is embedded; clients such as Grafana pick features by it.
const promVersion = "3.16.0"

// apiServer serves the read part of Prometheus' HTTP API over a storage and an
// engine: query, query_range, labels, label values, series, buildinfo.
type apiServer struct {
	db       storage.Queryable
	engine   *promql.Engine
	parser   parser.Parser
	lookback time.Duration
	// subqueryStep is the step of a subquery without one: the engine's
	// NoStepSubqueryIntervalFn, for the cost check.
	subqueryStep time.Duration
	sem          chan struct{} // bounds the run's own evaluations in flight
	otherSem     chan struct{} // bounds everyone else's, apart from the run's
	now          func() time.Time
}

// newAPI serves db through engine; lookback is the engine's lookback
// delta and subqueryStep its step of a subquery without one.
func newAPI(db storage.Queryable, engine *promql.Engine, lookback, subqueryStep time.Duration) *apiServer {
	return &apiServer{
		db:           db,
		engine:       engine,
		parser:       queryshape.Parser(),
		lookback:     lookback,
		subqueryStep: subqueryStep,
		sem:          make(chan struct{}, maxConcurrentQueries),
		otherSem:     make(chan struct{}, maxOtherQueries),
		now:          time.Now,
	}
}

// handler routes the endpoints; GET and POST are both accepted, as by
// Prometheus, with parameters in the URL or a form body.
func (a *apiServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/query", a.wrap(a.query))
	mux.HandleFunc("/api/v1/query_range", a.wrap(a.queryRange))
	mux.HandleFunc("/api/v1/labels", a.wrap(a.labelNames))
	mux.HandleFunc("/api/v1/label/{name}/values", a.wrap(a.labelValues))
	mux.HandleFunc("/api/v1/series", a.wrap(a.series))
	mux.HandleFunc("/api/v1/status/buildinfo", a.wrap(a.buildinfo))
	mux.HandleFunc("/api/v1/metadata", a.wrap(func(*http.Request, func(any, annotations.Annotations, string)) *apiError {
		return nil
	}))
	mux.HandleFunc("/api/v1/query_exemplars", a.wrap(func(_ *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
		respond([]struct{}{}, nil, "") // no exemplars are stored
		return nil
	}))
	mux.HandleFunc("/-/healthy", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("Healthy.\n")) })
	mux.HandleFunc("/-/ready", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("Ready.\n")) })
	return mux
}

// endpoint computes an answer and hands it to respond before returning,
// so that results owned by a query are encoded before the query is closed.
// A nil error with no call to respond answers success with empty data.
type endpoint func(r *http.Request, respond func(data any, warns annotations.Annotations, query string)) *apiError

// wrap checks the method, parses the form and writes the JSON envelope.
func (a *apiServer) wrap(f endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			w.Header().Set("Allow", "GET, POST")
			writeJSON(w, http.StatusMethodNotAllowed, response{Status: "error", ErrorType: errMethod, Error: "method not allowed: " + r.Method})
			return
		}
		if err := r.ParseForm(); err != nil {
			e := &apiError{errBadData, fmt.Errorf("error parsing form values: %w", err)}
			writeJSON(w, e.status(), response{Status: "error", ErrorType: e.typ, Error: e.err.Error()})
			return
		}
		responded := false
		respond := func(data any, warns annotations.Annotations, query string) {
			responded = true
			ws, is := warns.AsStrings(query, 10, 10)
			writeJSON(w, http.StatusOK, response{Status: "success", Data: data, Warnings: nonEmpty(ws), Infos: nonEmpty(is)})
		}
		if e := f(r, respond); e != nil {
			writeJSON(w, e.status(), response{Status: "error", ErrorType: e.typ, Error: e.err.Error()})
			return
		}
		if !responded {
			respond(map[string]any{}, nil, "")
		}
	}
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// writeJSON writes v with the status code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func badParam(name string, err error) *apiError {
	return &apiError{errBadData, fmt.Errorf("invalid parameter %q: %w", name, err)}
}

// queryContext applies the optional timeout parameter and waits for an
// evaluation slot: one of the run's own (a request guard marked as the
// run's, ownRequest) or one of the others', so that nobody else's queries
// hold the slots the run's sampling needs. The returned release must be
// called.
func (a *apiServer) queryContext(r *http.Request) (context.Context, func(), *apiError) {
	ctx, cancel := r.Context(), func() {}
	if s := r.FormValue("timeout"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return nil, nil, badParam("timeout", err)
		}
		if d <= 0 {
			return nil, nil, badParam("timeout", fmt.Errorf("timeout must be positive, got %s", s))
		}
		ctx, cancel = context.WithTimeout(ctx, d)
	}
	sem := a.otherSem
	if ownRequest(r.Context()) {
		sem = a.sem
	}
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		cancel()
		return nil, nil, engineError(ctx.Err())
	}
	return ctx, func() { <-sem; cancel() }, nil
}

// queryOpts reads the optional lookback_delta parameter.
func (a *apiServer) queryOpts(r *http.Request) (promql.QueryOpts, *apiError) {
	lookback := a.lookback
	if s := r.FormValue("lookback_delta"); s != "" {
		d, err := parseDuration(s)
		if err != nil {
			return nil, badParam("lookback_delta", err)
		}
		lookback = d
	}
	return promql.NewPrometheusQueryOpts(false, lookback, nil), nil
}

// query serves /api/v1/query: query, time (default now), timeout.
func (a *apiServer) query(r *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	ts, err := parseTimeOr(r.FormValue("time"), a.now())
	if err != nil {
		return badParam("time", err)
	}
	ev := queryshape.Evaluation{Start: ts, End: ts}
	return a.run(r, respond, ev, func(ctx context.Context, opts promql.QueryOpts, qs string) (promql.Query, error) {
		return a.engine.NewInstantQuery(ctx, a.db, opts, qs, ts)
	})
}

// queryRange serves /api/v1/query_range: query, start, end, step, timeout.
func (a *apiServer) queryRange(r *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	start, err := parseTime(r.FormValue("start"))
	if err != nil {
		return badParam("start", err)
	}
	end, err := parseTime(r.FormValue("end"))
	if err != nil {
		return badParam("end", err)
	}
	if end.Before(start) {
		return badParam("end", errors.New("end timestamp must not be before start time"))
	}
	step, err := parseDuration(r.FormValue("step"))
	if err != nil {
		return badParam("step", err)
	}
	if step <= 0 {
		return badParam("step", errors.New("zero or negative query resolution step widths are not accepted. Try a positive integer"))
	}
	if end.Sub(start)/step > maxPointsPerSeries {
		return &apiError{errBadData, errors.New("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)")}
	}
	ev := queryshape.Evaluation{Start: start, End: end, Step: step}
	return a.run(r, respond, ev, func(ctx context.Context, opts promql.QueryOpts, qs string) (promql.Query, error) {
		return a.engine.NewRangeQuery(ctx, a.db, opts, qs, start, end, step)
	})
}

// run builds the query of parameter query with newQuery, under the request's
// lookback_delta and timeout and an evaluation slot, and executes it,
// unless its cost as evaluated by ev is over queryshape's bounds: then
// the answer is bad_data (400) before any evaluation.
func (a *apiServer) run(r *http.Request, respond func(any, annotations.Annotations, string), ev queryshape.Evaluation, newQuery func(context.Context, promql.QueryOpts, string) (promql.Query, error)) *apiError {
	opts, e := a.queryOpts(r)
	if e != nil {
		return e
	}
	// The cost is judged from the text before an evaluation slot is
	// taken: a query refused never waits for one, nor holds one.
	qs := r.FormValue("query")
	ev.SubqueryStep = a.subqueryStep
	if err := queryshape.CheckCost(qs, ev); errors.Is(err, queryshape.ErrTooCostly) {
		return badParam("query", err)
	}
	ctx, release, e := a.queryContext(r)
	if e != nil {
		return e
	}
	defer release()
	// Any other error (a syntax error) the engine reports in its own words.
	qry, err := newQuery(ctx, opts, qs)
	if err != nil {
		return constructionError(err)
	}
	defer qry.Close()
	return a.exec(ctx, qry, qs, respond)
}

// exec runs qry and responds with its value in Prometheus' format.
func (a *apiServer) exec(ctx context.Context, qry promql.Query, qs string, respond func(any, annotations.Annotations, string)) *apiError {
	res := qry.Exec(ctx)
	if res.Err != nil {
		return engineError(res.Err)
	}
	var result any = res.Value
	// Empty results are [] in Prometheus' answers, never null.
	switch v := res.Value.(type) {
	case promql.Vector:
		if v == nil {
			result = promql.Vector{}
		}
	case promql.Matrix:
		if v == nil {
			result = promql.Matrix{}
		}
	}
	respond(queryData{ResultType: res.Value.Type(), Result: result}, res.Warnings, qs)
	return nil
}

// constructionError maps an error of building a query (parse errors
// mostly) to bad_data, naming the parameter, as Prometheus does.
func constructionError(err error) *apiError {
	var timeout promql.ErrQueryTimeout
	var canceled promql.ErrQueryCanceled
	if errors.As(err, &timeout) || errors.As(err, &canceled) {
		return engineError(err)
	}
	return badParam("query", err)
}

// engineError maps an evaluation error to its API error type.
func engineError(err error) *apiError {
	var timeout promql.ErrQueryTimeout
	var canceled promql.ErrQueryCanceled
	var storageErr promql.ErrStorage
	switch {
	case errors.As(err, &canceled), errors.Is(err, context.Canceled):
		return &apiError{errCanceled, err}
	case errors.As(err, &timeout), errors.Is(err, context.DeadlineExceeded):
		return &apiError{errTimeout, err}
	case errors.As(err, &storageErr):
		return &apiError{errInternal, err}
	}
	return &apiError{errExec, err}
}

// selection reads start, end and match[] for the metadata endpoints and
// opens a querier over that time range; the caller closes it.
func (a *apiServer) selection(r *http.Request, requireMatch bool) (q storage.Querier, mint, maxt int64, sets [][]*labels.Matcher, e *apiError) {
	var err error
	if mint, err = msOr(r.FormValue("start"), minTimeMs); err != nil {
		return nil, 0, 0, nil, badParam("start", err)
	}
	if maxt, err = msOr(r.FormValue("end"), maxTimeMs); err != nil {
		return nil, 0, 0, nil, badParam("end", err)
	}
	matches := r.Form["match[]"]
	if requireMatch && len(matches) == 0 {
		return nil, 0, 0, nil, &apiError{errBadData, errors.New("no match[] parameter provided")}
	}
	if len(matches) > 0 {
		if sets, err = a.parser.ParseMetricSelectors(matches); err != nil {
			return nil, 0, 0, nil, badParam("match[]", err)
		}
	}
	if q, err = a.db.Querier(mint, maxt); err != nil {
		return nil, 0, 0, nil, engineError(err)
	}
	return q, mint, maxt, sets, nil
}

// labelNames serves /api/v1/labels: start, end, match[].
func (a *apiServer) labelNames(r *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	return a.labelQuery(r, func(ctx context.Context, q storage.Querier, ms []*labels.Matcher) ([]string, annotations.Annotations, error) {
		return q.LabelNames(ctx, &storage.LabelHints{}, ms...)
	}, respond)
}

// labelValues serves /api/v1/label/<name>/values: start, end, match[].
func (a *apiServer) labelValues(r *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	name := r.PathValue("name")
	if !model.LabelName(name).IsValid() {
		return &apiError{errBadData, fmt.Errorf("invalid label name: %q", name)}
	}
	return a.labelQuery(r, func(ctx context.Context, q storage.Querier, ms []*labels.Matcher) ([]string, annotations.Annotations, error) {
		return q.LabelValues(ctx, name, &storage.LabelHints{}, ms...)
	}, respond)
}

// labelQuery runs get once per matcher set (once with none when no
// match[] is given) and answers the sorted union.
func (a *apiServer) labelQuery(r *http.Request, get func(context.Context, storage.Querier, []*labels.Matcher) ([]string, annotations.Annotations, error), respond func(any, annotations.Annotations, string)) *apiError {
	q, _, _, sets, e := a.selection(r, false)
	if e != nil {
		return e
	}
	defer q.Close()
	if len(sets) == 0 {
		sets = [][]*labels.Matcher{nil}
	}
	var all []string
	var warns annotations.Annotations
	for _, ms := range sets {
		vals, w, err := get(r.Context(), q, ms)
		if err != nil {
			return engineError(err)
		}
		warns.Merge(w)
		all = append(all, vals...)
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if all == nil {
		all = []string{}
	}
	respond(all, warns, "")
	return nil
}

// series serves /api/v1/series: match[] (required), start, end.
func (a *apiServer) series(r *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	q, mint, maxt, sets, e := a.selection(r, true)
	if e != nil {
		return e
	}
	defer q.Close()
	hints := &storage.SelectHints{Start: mint, End: maxt, Func: "series"}
	out := []labels.Labels{}
	seen := map[uint64]bool{}
	var warns annotations.Annotations
	for _, ms := range sets {
		set := q.Select(r.Context(), false, hints, ms...)
		for set.Next() {
			l := set.At().Labels()
			if h := l.Hash(); !seen[h] {
				seen[h] = true
				out = append(out, l)
			}
		}
		if err := set.Err(); err != nil {
			return engineError(err)
		}
		warns.Merge(set.Warnings())
	}
	slices.SortFunc(out, labels.Compare)
	respond(out, warns, "")
	return nil
}

// buildinfo serves /api/v1/status/buildinfo.
func (a *apiServer) buildinfo(_ *http.Request, respond func(any, annotations.Annotations, string)) *apiError {
	respond(buildInfo{
		Version:   promVersion,
		Revision:  "embedded",
		Branch:    "trigger",
		BuildUser: "trigger",
		BuildDate: "",
		GoVersion: runtime.Version(),
	}, nil, "")
	return nil
}
