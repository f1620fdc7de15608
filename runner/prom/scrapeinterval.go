package prom

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/trigger-test/trigger/internal/queryshape"
)

// How ScrapeInterval found the interval: the start of its second result.
const (
	// HowTargets: the scrapeInterval the server reports for the targets
	// whose job and instance labels the series carry.
	HowTargets = "from /api/v1/targets"
	// HowMeasured: the median gap between the timestamps of the series'
	// raw samples.
	HowMeasured = "measured from sample timestamps"
	// NoSeriesYet marks, in the details, a selector with no series now,
	// whose interval came from the targets its labels allow.
	NoSeriesYet = "has no series yet"
)

// ScrapeInterval returns the longest scrape interval among the targets
// that produce the given selectors' series (as QueryShape.Selectors gives
// them), as the server reports or its samples show, and how it was found:
// a text starting with HowTargets, HowMeasured, or both joined by " and ",
// followed by details in parentheses.
//
// For each selector it asks which (job, instance) pairs its series have
// now (count by (job, instance) (selector)) and looks them up among the
// active targets of /api/v1/targets. Pairs with no target there (no
// targets API, as on the embedded server; relabelled series; recording
// rules) are measured instead: for one series per pair, the median gap
// between the timestamps of its raw samples over the last 5 min (30 min
// if that holds fewer than 3). A selector with no series now (a service
// just restarted, a driver's counter that appears with the load) takes the
// longest interval of the active targets its label matchers allow
// (scrapeTargets.allowing); with none, it is skipped and named in the
// details. With no selector at all the result is 0.
//
// Every request goes through the Remote's retries and per-attempt
// timeout and is bounded by ctx. The error wraps ErrNoData, saying why,
// when no interval could be found (no series, too few samples), or is the
// *QueryError of a query that failed (ErrBadQuery for a selector that is
// not one, ErrUnreachable, ...).
func (r *Remote) ScrapeInterval(ctx context.Context, selectors []string) (time.Duration, string, error) {
	for _, s := range selectors {
		if err := checkSelector(s); err != nil {
			return 0, "", err
		}
	}
	now := time.Now()
	var (
		longest         time.Duration
		found           int
		usedT, usedM    bool
		targets         map[jobInstance]time.Duration
		active          scrapeTargets
		targetsErr      error
		targetsRead     bool
		notes, notFound []string
	)
	for _, sel := range selectors {
		pairs, err := r.seriesPairs(ctx, sel, now)
		if err != nil {
			return 0, "", err
		}
		if !targetsRead {
			active, targetsErr = r.targetIntervals(ctx)
			targets, targetsRead = active.byPair(), true
			if ctx.Err() != nil {
				return 0, "", fmt.Errorf("scrape interval: %w", targetsErr)
			}
			if targetsErr != nil {
				notes = append(notes, targetsErr.Error())
			}
		}
		if len(pairs) == 0 {
			// No series yet (a service just restarted, a counter that
			// appears with the load): the targets its labels allow say
			// how often they will be scraped.
			if ds := active.allowing(selectorMatchers(sel)); len(ds) > 0 {
				d := slices.Max(ds)
				longest, usedT, found = max(longest, d), true, found+1
				notes = append(notes, fmt.Sprintf("%s %s: the longest interval of the %d active targets its labels allow", sel, NoSeriesYet, len(ds)))
				continue
			}
			notFound = append(notFound, sel)
			continue
		}
		var unknown []jobInstance
		for _, p := range pairs {
			if d := targets[p]; d > 0 {
				longest, usedT = max(longest, d), true
			} else {
				unknown = append(unknown, p)
			}
		}
		if len(unknown) == 0 {
			found++
			continue
		}
		if targetsErr == nil {
			notes = append(notes, "no active target with a scrapeInterval for "+strings.Join(pairNames(unknown), ", "))
		}
		d, what, err := r.measureIntervals(ctx, sel, unknown, now)
		if err != nil {
			if errors.Is(err, ErrNoData) && len(notes) > 0 {
				return 0, "", fmt.Errorf("scrape interval of %s: %w (%s)", sel, err, strings.Join(notes, "; "))
			}
			return 0, "", fmt.Errorf("scrape interval of %s: %w", sel, err)
		}
		notes = append(notes, sel+": "+what)
		longest, usedM, found = max(longest, d), true, found+1
	}
	if len(notFound) > 0 {
		notes = append(notes, "no series now of "+strings.Join(notFound, ", "))
	}
	if found == 0 && len(selectors) > 0 {
		return 0, "", fmt.Errorf("scrape interval: %w: no series now of %s", ErrNoData, strings.Join(selectors, ", "))
	}
	return longest, howText(usedT, usedM, notes), nil
}

// howText renders the second result of ScrapeInterval.
func howText(targets, measured bool, notes []string) string {
	var how string
	switch {
	case targets && measured:
		how = HowTargets + " and " + HowMeasured
	case targets:
		how = HowTargets
	case measured:
		how = HowMeasured
	default:
		how = "no selectors: nothing is scraped"
	}
	if len(notes) > 0 {
		how += " (" + strings.Join(notes, "; ") + ")"
	}
	return how
}

// selectorMatchers returns the label matchers of a selector checkSelector
// accepted.
func selectorMatchers(s string) []*labels.Matcher {
	e, err := queryshape.Parser().ParseExpr(s)
	if err != nil {
		return nil
	}
	if vs, ok := e.(*parser.VectorSelector); ok {
		return vs.LabelMatchers
	}
	return nil
}

// checkSelector parses s and requires a plain vector selector, so that
// ScrapeInterval sends only selectors to the server.
func checkSelector(s string) error {
	e, err := queryshape.Parser().ParseExpr(s)
	if err != nil {
		return fmt.Errorf("scrape interval: %w: selector %q: %w", ErrBadQuery, s, err)
	}
	if _, ok := e.(*parser.VectorSelector); !ok {
		return fmt.Errorf("scrape interval: %w: %q is not a vector selector such as x_total{job=\"api\"}", ErrBadQuery, s)
	}
	return nil
}

// seriesPairs returns the (job, instance) pairs of the series selector
// matches at now, sorted.
func (r *Remote) seriesPairs(ctx context.Context, selector string, now time.Time) ([]jobInstance, error) {
	query := "count by (job, instance) (" + selector + ")"
	v, err := r.query(ctx, query, now)
	if err != nil {
		return nil, fmt.Errorf("scrape interval: %w", err)
	}
	vec, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("scrape interval: %w", &QueryError{Query: query, Err: fmt.Errorf("%w: gave %s, not a vector", ErrBadQuery, v.Type())})
	}
	pairs := make([]jobInstance, 0, len(vec))
	for _, s := range vec {
		pairs = append(pairs, seriesPair(s.Metric))
	}
	slices.SortFunc(pairs, func(a, b jobInstance) int {
		return strings.Compare(a.job+"\xff"+a.instance, b.job+"\xff"+b.instance)
	})
	return pairs, nil
}
