package scenarios

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// Enumerated attributes (client.arrivals, client.retry.on, the backoff's
// kind and jitter, service.service_time, service.queue, the autoscaler's
// signal) are decoded once, here, into vocab's typed values (client.retry.on
// into a retry.OutcomeSet): the resolved Scenario holds no enumeration as
// a string, and nothing after it parses one again.
//
// A scenario spells each value exactly as vocab's …Names list it: vocab's
// Parse functions also take other cases and surrounding space, a scenario
// does not ("Poisson" is an unknown arrival process).

// enum reads attribute name of b as one of names (an enumeration's values
// as a scenario spells them) and returns parse's typed value for it; def
// when the attribute is absent or failed. An unknown name is reported at
// the value (see enumValue), and def returned.
func enum[T any](b *body, name, what string, def T, names []string, parse func(string) (T, error)) T {
	v, ok := b.eval(name, cty.String)
	if !ok {
		return def
	}
	t, _ := enumValue(b.d, b.sub(name), what, v.AsString(), def, names, parse)
	return t
}

// enumValue returns parse(s) and true when s is one of names. Otherwise it
// reports the value at path as an unknown what, suggesting the closest of
// names, marks the path failed and unknown, and returns def and false.
func enumValue[T any](d *decoder, path, what, s string, def T, names []string, parse func(string) (T, error)) (T, bool) {
	if t, err := parse(s); err == nil && contains(names, s) {
		return t, true
	}
	d.reportUnknown(path, what, s, names)
	d.src.failed[path] = true
	d.src.unknown[path] = true
	return def, false
}

// outcomes reads attribute name of b, a list of outcome class names
// (client.retry.on), into a set; def when the attribute is absent or
// failed. An unknown name is reported at its element, and the list is then
// marked failed: it was not empty, whatever the set holds. A gRPC status
// name, in any case ("UNAVAILABLE"), stands for its code's whole class
// (vocab.ParseGRPCStatus: "unavailable" is "503").
func (b *body) outcomes(name string, def retry.OutcomeSet) retry.OutcomeSet {
	names := b.strList(name, nil) // nil: absent or failed; a list given empty is not nil
	if names == nil {
		return def
	}
	path := b.sub(name)
	var set retry.OutcomeSet
	for i, n := range names {
		if o, ok := vocab.ParseGRPCStatus(n); ok {
			set |= retry.NewOutcomeSet(o)
			continue
		}
		o, ok := enumValue(b.d, fmt.Sprintf("%s[%d]", path, i), "outcome class", n, vocab.OutcomeOK, outcomeClasses, vocab.ParseOutcome)
		if !ok {
			b.d.src.failed[path] = true
			continue
		}
		set |= retry.NewOutcomeSet(o)
	}
	return set
}

// reportUnknown reports the value at path, name, as an unknown what,
// suggesting the closest of names and listing them all.
func (d *decoder) reportUnknown(path, what, name string, names []string) {
	d.reportAt(hcl.DiagError, path, "Unknown "+what,
		"%q is not a known %s.%s Use %s.", name, what, enumHint(what, name, names), quoteList(names))
}
