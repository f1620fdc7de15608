package prom

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
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

// targetEntry is one active target: its labels and scrape interval (0
// when the server does not say).
type targetEntry struct {
	labels   map[string]string
	interval time.Duration
}

// scrapeTargets are the active targets of a server, as /api/v1/targets
// lists them.
type scrapeTargets []targetEntry

// byPair returns the scrape interval of each (job, instance), the longest
// where two targets share both labels.
func (ts scrapeTargets) byPair() map[jobInstance]time.Duration {
	out := make(map[jobInstance]time.Duration, len(ts))
	for _, t := range ts {
		p := jobInstance{t.labels["job"], t.labels["instance"]}
		out[p] = max(out[p], t.interval)
	}
	return out
}

// targetIntervals reads the active targets from /api/v1/targets, through
// client_golang's v1 API and the retries of do, with the scrape interval
// of each; 0 where the server does not say. An error says why the targets
// could not be read; a server that does not serve the endpoint (HTTP 404,
// as the embedded server) gets a short one.
func (r *Remote) targetIntervals(ctx context.Context) (scrapeTargets, error) {
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
// the active targets with their scrape intervals. The interval is the
// target's scrapeInterval, else its __scrape_interval__ discovered label;
// 0 when neither is there or readable.
func parseTargetIntervals(body []byte) (scrapeTargets, error) {
	var a targetsAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("targets: %w: decoding /api/v1/targets: %w", ErrServer, err)
	}
	out := make(scrapeTargets, 0, len(a.Data.ActiveTargets))
	for _, t := range a.Data.ActiveTargets {
		s := t.ScrapeInterval
		if s == "" {
			s = t.DiscoveredLabels["__scrape_interval__"]
		}
		var d time.Duration
		if md, err := model.ParseDuration(s); err == nil {
			d = time.Duration(md)
		}
		out = append(out, targetEntry{labels: t.Labels, interval: d})
	}
	return out, nil
}

// allowing returns the intervals of the targets whose labels the
// selector's matchers allow: every matcher on a label the target carries
// (job, instance, any target label) must match it; matchers on other
// labels, and on the metric's name, say nothing about the target. Targets
// whose interval is unknown are left out.
func (ts scrapeTargets) allowing(matchers []*labels.Matcher) []time.Duration {
	var out []time.Duration
	for _, t := range ts {
		if t.interval <= 0 {
			continue
		}
		ok := true
		for _, m := range matchers {
			if v, has := t.labels[m.Name]; has && !m.Matches(v) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, t.interval)
		}
	}
	return out
}
