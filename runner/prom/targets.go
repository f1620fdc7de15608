package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/model"
)

// jobInstance names the scrape target a series comes from: its job and
// instance labels ("" when the series has none, as for many recording
// rules).
type jobInstance struct {
	job, instance string
}

// String renders `job="api" instance="10.0.0.1:8080"`.
func (p jobInstance) String() string {
	return fmt.Sprintf("job=%q instance=%q", p.job, p.instance)
}

// targetsAnswer is the part of an /api/v1/targets answer ScrapeInterval
// reads. client_golang v1.25.0's ActiveTarget has no scrapeInterval, so
// the body is decoded again here.
type targetsAnswer struct {
	Data struct {
		ActiveTargets []struct {
			Labels           map[string]string `json:"labels"`
			DiscoveredLabels map[string]string `json:"discoveredLabels"`
			// ScrapeInterval is a Prometheus duration such as "15s" or
			// "1m30s" (Prometheus ≥ 2.31).
			ScrapeInterval string `json:"scrapeInterval"`
		} `json:"activeTargets"`
	} `json:"data"`
}

// targetIntervals reads the active targets from /api/v1/targets, through
// client_golang's v1 API and the retries of do, and returns the scrape
// interval of each (job, instance); 0 where the server does not say. An
// error says why the targets could not be read; a server that does not
// serve the endpoint (HTTP 404, as the embedded server) gets a short one.
func (r *Remote) targetIntervals(ctx context.Context) (map[jobInstance]time.Duration, error) {
	var k kept
	_, err := r.do(ctx, func(ctx context.Context) (model.Value, error) {
		_, err := r.api.Targets(withKept(ctx, &k))
		return nil, err
	})
	if err != nil {
		if k.status == http.StatusNotFound && ctx.Err() == nil {
			return nil, fmt.Errorf("targets: %w: the server does not serve /api/v1/targets (HTTP 404)", ErrServer)
		}
		return nil, fmt.Errorf("targets: %w", err)
	}
	return parseTargetIntervals(k.body)
}

// parseTargetIntervals decodes the body of an /api/v1/targets answer into
// the scrape interval of each (job, instance) of the active targets, the
// longest where two targets share both labels. The interval is the
// target's scrapeInterval, else its __scrape_interval__ discovered label;
// 0 when neither is there or readable.
func parseTargetIntervals(body []byte) (map[jobInstance]time.Duration, error) {
	var a targetsAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("targets: %w: decoding /api/v1/targets: %w", ErrServer, err)
	}
	out := make(map[jobInstance]time.Duration, len(a.Data.ActiveTargets))
	for _, t := range a.Data.ActiveTargets {
		p := jobInstance{t.Labels["job"], t.Labels["instance"]}
		s := t.ScrapeInterval
		if s == "" {
			s = t.DiscoveredLabels["__scrape_interval__"]
		}
		var d time.Duration
		if md, err := model.ParseDuration(s); err == nil {
			d = time.Duration(md)
		}
		out[p] = max(out[p], d)
	}
	return out, nil
}
