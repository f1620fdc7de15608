package staging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Sample is one element of an instant vector from Prometheus' query API.
type Sample struct {
	// Labels are the series' labels, __name__ included when kept.
	Labels map[string]string
	// At is the evaluation time.
	At time.Time
	// Value is the sample's value (units of the query).
	Value float64
}

// Query evaluates expr now through /api/v1/query and returns its instant
// vector (a scalar comes back as one Sample without labels). An empty
// vector is not an error.
func (p *Prometheus) Query(ctx context.Context, expr string) ([]Sample, error) {
	u := p.URL + "/api/v1/query?" + url.Values{"query": {expr}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
	}
	return decodeQuery(expr, resp.StatusCode, body)
}

// decodeQuery decodes an /api/v1/query answer.
func decodeQuery(expr string, status int, body []byte) ([]Sample, error) {
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("staging: prometheus query %q: HTTP %d: %w", expr, status, err)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("staging: prometheus query %q: HTTP %d: %s", expr, status, r.Error)
	}
	switch r.Data.ResultType {
	case "vector":
		var v []struct {
			Metric map[string]string `json:"metric"`
			Value  [2]any            `json:"value"`
		}
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
		}
		out := make([]Sample, 0, len(v))
		for _, e := range v {
			s, err := decodePoint(e.Value)
			if err != nil {
				return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
			}
			s.Labels = e.Metric
			out = append(out, s)
		}
		return out, nil
	case "scalar":
		var v [2]any
		if err := json.Unmarshal(r.Data.Result, &v); err != nil {
			return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
		}
		s, err := decodePoint(v)
		if err != nil {
			return nil, fmt.Errorf("staging: prometheus query %q: %w", expr, err)
		}
		return []Sample{s}, nil
	}
	return nil, fmt.Errorf("staging: prometheus query %q: result type %q: want vector or scalar", expr, r.Data.ResultType)
}

// decodePoint decodes [unix seconds, "value"].
func decodePoint(p [2]any) (Sample, error) {
	ts, ok := p[0].(float64)
	str, ok2 := p[1].(string)
	if !ok || !ok2 {
		return Sample{}, fmt.Errorf("malformed point %v", p)
	}
	v, err := strconv.ParseFloat(str, 64)
	if err != nil {
		return Sample{}, fmt.Errorf("point value %q: %w", str, err)
	}
	sec, frac := math.Modf(ts)
	return Sample{At: time.Unix(int64(sec), int64(frac*1e9)), Value: v}, nil
}

// errNotEnough is WaitForSeries' reason to poll again.
var errNotEnough = errors.New("fewer series than wanted")

// WaitForSeries evaluates expr every 250 ms until it returns at least n
// samples, and returns them; it gives up when ctx ends (give it a
// deadline), returning the last error.
func (p *Prometheus) WaitForSeries(ctx context.Context, expr string, n int) ([]Sample, error) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		s, err := p.Query(ctx, expr)
		if err == nil && len(s) >= n {
			return s, nil
		}
		if err == nil {
			err = fmt.Errorf("%w: %d of %d", errNotEnough, len(s), n)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("staging: prometheus: waiting for %d series of %q: %w (last: %v)", n, expr, ctx.Err(), err)
		case <-tick.C:
		}
	}
}
