package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// MarshalJSON encodes the document as encoding/json does, except that a
// NaN or infinite number, which JSON cannot hold, is null wherever it is:
// in a float64 field, behind a *float64, in a []float64. A document always
// encodes, so a run always leaves its result.json (encoding/json refuses
// the whole document for one NaN). Read back, such a number is nil in a
// pointer field and 0 in a plain float64 field.
//
// Every figure is written rounded to what it means (RoundFigure: 6
// significant digits, whole numbers whole), not as float64 arithmetic
// left it (5.999999999999998); the document in memory keeps its values.
// The judging record and the timeline rows are data, not figures: they
// are written exactly, so `trigger judge` replays what the run read.
func (d Document) MarshalJSON() ([]byte, error) {
	type plain Document // the same fields without this method
	var buf bytes.Buffer
	if err := (encoder{round: true}).encode(&buf, reflect.ValueOf(plain(d))); err != nil {
		return nil, fmt.Errorf("analysis: document: %w", err)
	}
	return buf.Bytes(), nil
}

// figureDigits are the significant digits RoundFigure keeps.
const figureDigits = 6

// RoundFigure rounds x to 6 significant digits, or to a whole number when
// its whole part has more digits than that (a count stays exact): what a
// figure means, without float64's last-digit noise (3.002662490342487 is
// 3.00266, 5.999999999999998 is 6). NaN and infinities are returned as
// they are.
func RoundFigure(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	if math.Abs(x) >= 1e6 {
		return math.Round(x)
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', figureDigits, 64), 64)
	if err != nil {
		return x
	}
	return r
}

// encodeFinite writes v as encoding/json would, non-finite numbers as
// null (numbers exact).
func encodeFinite(buf *bytes.Buffer, v reflect.Value) error {
	return encoder{}.encode(buf, v)
}

// encoder writes values as encoding/json would, non-finite numbers as
// null; with round, numbers rounded by RoundFigure (but in a judging
// record).
type encoder struct{ round bool }

var judgingType = reflect.TypeFor[*JudgingRecord]()

// encode writes v. Values whose type holds no floating-point number are
// encoded by encoding/json itself; the walk covers the kinds the
// document's types use around numbers: structs (exported fields, json tags
// with omitempty and omitzero, embedded structs), pointers, interfaces,
// slices, arrays and maps with string keys.
func (e encoder) encode(buf *bytes.Buffer, v reflect.Value) error {
	if !v.IsValid() {
		buf.WriteString("null")
		return nil
	}
	if !holdsFloat(v.Type(), nil) || implementsMarshaler(v.Type()) {
		b, err := json.Marshal(v.Interface())
		buf.Write(b)
		return err
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			buf.WriteString("null")
			return nil
		}
		var b []byte
		var err error
		if e.round {
			b, err = json.Marshal(RoundFigure(f))
		} else {
			b, err = json.Marshal(v.Interface())
		}
		buf.Write(b)
		return err
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		if v.Type() == judgingType {
			e.round = false
		}
		return e.encode(buf, v.Elem())
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			buf.WriteString("null")
			return nil
		}
		buf.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := e.encode(buf, v.Index(i)); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case reflect.Map:
		return e.encodeMap(buf, v)
	case reflect.Struct:
		return e.encodeStruct(buf, v)
	}
	return fmt.Errorf("cannot encode a %s", v.Type())
}

// encodeMap writes a map with string keys, sorted as encoding/json sorts them.
func (e encoder) encodeMap(buf *bytes.Buffer, v reflect.Value) error {
	if v.IsNil() {
		buf.WriteString("null")
		return nil
	}
	if v.Type().Key().Kind() != reflect.String {
		return fmt.Errorf("cannot encode a %s: only string keys", v.Type())
	}
	keys := v.MapKeys()
	slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(a.String(), b.String()) })
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, _ := json.Marshal(k.String())
		buf.Write(name)
		buf.WriteByte(':')
		if err := e.encode(buf, v.MapIndex(k)); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

// encodeStruct writes a struct's fields in encoding/json's order: exported
// fields in declaration order, an untagged embedded struct's fields in its
// place. (The document's types have no two fields of one name, so
// encoding/json's rules for those are not needed.)
func (e encoder) encodeStruct(buf *bytes.Buffer, v reflect.Value) error {
	buf.WriteByte('{')
	first := true
	var walk func(v reflect.Value) error
	walk = func(v reflect.Value) error {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			fv := v.Field(i)
			if f.Anonymous && name == "" {
				et := f.Type
				if et.Kind() == reflect.Pointer {
					if fv.IsNil() {
						continue
					}
					fv, et = fv.Elem(), et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if err := walk(fv); err != nil {
						return err
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if hasOpt(opts, "omitempty") && isEmpty(fv) || hasOpt(opts, "omitzero") && fv.IsZero() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !first {
				buf.WriteByte(',')
			}
			first = false
			key, _ := json.Marshal(name)
			buf.Write(key)
			buf.WriteByte(':')
			if err := e.encode(buf, fv); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(v); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

// hasOpt reports whether a json tag's options (after the name) include opt.
func hasOpt(opts, opt string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// isEmpty is encoding/json's omitempty test.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

var marshalerType = reflect.TypeFor[json.Marshaler]()

// implementsMarshaler reports whether t encodes itself.
func implementsMarshaler(t reflect.Type) bool {
	return t.Implements(marshalerType) || reflect.PointerTo(t).Implements(marshalerType)
}

// holdsFloat reports whether a value of type t can hold a floating-point
// number anywhere (seen guards against recursive types).
func holdsFloat(t reflect.Type, seen map[reflect.Type]bool) bool {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsFloat(t.Elem(), seen)
	case reflect.Map:
		return holdsFloat(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return false
		}
		if seen == nil {
			seen = map[reflect.Type]bool{}
		}
		seen[t] = true
		for i := range t.NumField() {
			if holdsFloat(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}
