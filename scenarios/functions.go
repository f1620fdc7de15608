package scenarios

import (
	"fmt"
	"math"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/trigger-test/trigger/vocab"
)

// MaxSlots is the most per-request values (data columns, random::int
// calls and their JSON forms) a target may hold.
const MaxSlots = 1024

// maxRandomInt bounds random::int's bounds: whole numbers a float64 holds
// exactly.
const maxRandomInt = 1 << 53

// functions are the functions a scenario's expressions may call:
// jsonencode anywhere; random::int in a target's url, headers and body.
func (d *decoder) functions() map[string]function.Function {
	return map[string]function.Function{
		"jsonencode":  d.jsonencode(),
		"random::int": d.randomInt(),
	}
}

// jsonencode is HCL's jsonencode, aware of per-request values: a string
// that is exactly request.seq or a random::int is written as a JSON
// number, a data column in a string as its JSON-escaped text.
func (d *decoder) jsonencode() function.Function {
	return function.New(&function.Spec{
		Description: "Returns the JSON text of a value.",
		Params:      []function.Parameter{{Name: "val", Type: cty.DynamicPseudoType, AllowDynamicType: true, AllowNull: true}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := stdlib.JSONEncode(args[0])
			if err != nil || !v.IsKnown() {
				return v, err
			}
			return cty.StringVal(d.jsonMarkers(v.AsString())), nil
		},
	})
}

// jsonMarkers rewrites the markers of js, a JSON text: a numeric value
// that is a whole string loses its quotes, a data column becomes its
// JSON form's marker.
func (d *decoder) jsonMarkers(js string) string {
	if !vocab.HasMarker(js) {
		return js
	}
	parts := vocab.SplitMarkers(js)
	var out strings.Builder
	for i, p := range parts {
		switch {
		case !p.IsValue:
			out.WriteString(p.Text)
		case p.Slot < len(d.slots) && d.slots[p.Slot].Value.Numeric() && quotedPart(parts, i):
			// "<seq>" becomes <seq>: drop the quotes on both sides.
			cut := strings.TrimSuffix(out.String(), `"`)
			out.Reset()
			out.WriteString(cut + vocab.Marker(p.Slot))
			parts[i+1].Text = parts[i+1].Text[1:]
		case p.Slot < len(d.slots) && d.slots[p.Slot].Value == vocab.PerDataColumn && !d.slots[p.Slot].JSON:
			out.WriteString(vocab.Marker(d.jsonSlot(p.Slot)))
		default:
			out.WriteString(vocab.Marker(p.Slot))
		}
	}
	return out.String()
}

// quotedPart reports whether part i of a JSON text's parts is a value
// between quotes, a whole JSON string.
func quotedPart(parts []vocab.Part, i int) bool {
	return i > 0 && i+1 < len(parts) && !parts[i-1].IsValue && !parts[i+1].IsValue &&
		strings.HasSuffix(parts[i-1].Text, `"`) && strings.HasPrefix(parts[i+1].Text, `"`)
}

// jsonSlot is the slot of slot i's value written as inside a JSON string.
func (d *decoder) jsonSlot(i int) int {
	if j, ok := d.jsonSlots[i]; ok {
		return j
	}
	s := d.slots[i]
	s.JSON = true
	d.slots = append(d.slots, s)
	d.jsonSlots[i] = len(d.slots) - 1
	return len(d.slots) - 1
}

// randomInt is random::int(lo, hi): a whole number from lo to hi, both
// included, drawn once per logical request.
func (d *decoder) randomInt() function.Function {
	return function.New(&function.Spec{
		Description: "Returns a whole number drawn from lo to hi, both included, once per logical request.",
		Params: []function.Parameter{
			{Name: "lo", Type: cty.Number},
			{Name: "hi", Type: cty.Number},
		},
		Type: function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if !d.perRequest {
				return cty.NilVal, fmt.Errorf("random::int is drawn once per logical request: only a target's (or its requests') url, headers and body may call it")
			}
			var b [2]int64
			for i, a := range args {
				f, _ := a.AsBigFloat().Float64()
				if f != math.Trunc(f) || math.Abs(f) > maxRandomInt {
					return cty.NilVal, function.NewArgErrorf(i, "want a whole number within ±2^53, got %s", a.AsBigFloat().Text('g', 10))
				}
				b[i] = int64(f)
			}
			if b[0] > b[1] {
				return cty.NilVal, function.NewArgErrorf(1, "hi (%d) is below lo (%d)", b[1], b[0])
			}
			if len(d.slots) >= MaxSlots {
				return cty.NilVal, fmt.Errorf("a target may hold at most %d per-request values", MaxSlots)
			}
			d.slots = append(d.slots, vocab.Slot{Value: vocab.PerRandomInt, Name: fmt.Sprintf("random::int(%d, %d)", b[0], b[1]),
				Lo: b[0], Hi: b[1], Draw: d.draws})
			d.draws++
			return cty.StringVal(vocab.Marker(len(d.slots) - 1)), nil
		},
	})
}
