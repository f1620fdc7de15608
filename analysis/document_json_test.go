package analysis

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// fill sets every field reachable from v: pointers and interfaces of
// struct type allocated, slices given two elements, maps one entry,
// strings "x", booleans true, integers 3, and every floating-point number
// num() (a float64 field, a *float64, a []float64 element alike). It
// returns how many numbers it set.
func fill(v reflect.Value, num func() float64) int {
	n := 0
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		v.SetFloat(num())
		return 1
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1) // a valid value of every enum (vocab.LatencyLaw reads back by name)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		n += fill(v.Elem(), num)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			n += fill(v.Index(i), num)
		}
	case reflect.Array:
		for i := range v.Len() {
			n += fill(v.Index(i), num)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, num)
		n += fill(e, num)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += fill(v.Field(i), num)
			}
		}
	}
	return n
}

// notNull walks a document read back and counts the numbers that are
// not the null a non-finite number was written as: plain floats not 0
// (nor NaN, how a timeline row reads a field it left out), *float64 not
// nil.
func notNull(v reflect.Value) int {
	n := 0
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		if x := v.Float(); x != 0 && !math.IsNaN(x) {
			n++
		}
	case reflect.Pointer:
		if !v.IsNil() {
			if k := v.Type().Elem().Kind(); k == reflect.Float64 || k == reflect.Float32 {
				return 1
			}
			n += notNull(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			n += notNull(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			n += notNull(v.MapIndex(k))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				n += notNull(v.Field(i))
			}
		}
	}
	return n
}

// Every number of the document NaN or infinite, in every kind of field:
// it still encodes, as valid JSON with every one of them null.
func TestDocumentEncodesNonFinite(t *testing.T) {
	kinds := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for i, x := range kinds {
		var doc Document
		j := i
		n := fill(reflect.ValueOf(&doc).Elem(), func() float64 { j++; return kinds[j%len(kinds)] })
		if n < 100 {
			t.Fatalf("only %d numbers set: the fill misses fields", n)
		}
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatalf("starting with %v: %v", x, err)
		}
		var back Document
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("starting with %v: reading back: %v", x, err)
		}
		if m := notNull(reflect.ValueOf(back)); m != 0 {
			t.Errorf("starting with %v: %d of %d non-finite numbers came back as numbers", x, m, n)
		}
		if back.Kind != "x" || len(back.Timeline) != 2 || back.Runs == nil || back.Observation == nil || len(back.Observation.Estimates) != 2 {
			t.Errorf("starting with %v: the rest of the document is lost: %+v", x, back)
		}
	}
}

// Where every number is finite, the walk that writes non-finite numbers as
// null writes exactly what encoding/json writes: the same fields, in the
// same order, omitted alike.
func TestDocumentEncodingFaithful(t *testing.T) {
	type plain Document
	full := Document{}
	x := 0.0
	fill(reflect.ValueOf(&full).Elem(), func() float64 { x += 1.25; return x })
	for name, doc := range map[string]Document{"empty": {}, "full": full} {
		want, err := json.Marshal(plain(doc))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := encodeFinite(&got, reflect.ValueOf(plain(doc))); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got.String(), want)
		}
		if b, err := json.Marshal(doc); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s: MarshalJSON of a finite document differs from encoding/json: %v", name, err)
		}
	}
}

// A timeline row writes its known fields only, and reads back with the
// fields left out unknown.
func TestTimelineRowJSON(t *testing.T) {
	m := UnknownRow()
	m.TS, m.Phase, m.Sent, m.WaitS, m.MaxWaitS, m.AttemptsPerS = 3, "spike", 40, 1.5, 2, []float64{40, 12}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"t_s":3,"phase":"spike","sent":40,"wait_s":1.5,"max_wait_s":2,"attempts_per_s":[40,12]}`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back TimelineRow
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.TS != 3 || back.Phase != "spike" || back.Sent != 40 || back.MaxWaitS != 2 || len(back.AttemptsPerS) != 2 ||
		!math.IsNaN(back.Timeouts) || !math.IsNaN(back.RetriesDroppedPerS) {
		t.Errorf("read back %+v", back)
	}
}

// RoundFigure keeps 6 significant digits, whole numbers of more digits
// whole, and non-finite numbers as they are.
func TestRoundFigure(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{5.999999999999998, 6}, {3.002662490342487, 3.00266}, {0.2777777777777778, 0.277778},
		{308.39999999999975, 308.4}, {-0.0011, -0.0011}, {1.23456789e-7, 1.23457e-7},
		{123456789.4, 123456789}, {0, 0}, {50, 50},
	} {
		if got := RoundFigure(c.x); got != c.want {
			t.Errorf("RoundFigure(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if !math.IsNaN(RoundFigure(math.NaN())) || !math.IsInf(RoundFigure(math.Inf(-1)), -1) {
		t.Error("RoundFigure changed a non-finite number")
	}
}

// A document's figures are written rounded (6 significant digits) and
// left as they are in memory; the judging record's data is written
// exactly, so a replay reads what the run read.
func TestDocumentJSONRoundsFiguresNotData(t *testing.T) {
	d := Document{Kind: "run", RecoveryS: Num(5.999999999999998)}
	d.Amplification.Measured = Num(3.002662490342487)
	d.Prediction.TrapThreshold = 1.0 / 3
	d.Observation = &Observation{FailedRequests: Num(123456789)}
	d.Judging = &JudgingRecord{End: JudgingEnd{AtS: 12.345678912, Cohorts: []Cohort{{TS: 1.0000000001, First: 1.0 / 3}}}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"recovery_s":6,`, `"measured":3.00266`, `"trap_threshold":0.333333,`, `"failed_requests_total":123456789`,
		`"at_s":12.345678912`, `"t_s":1.0000000001`, `"first":0.3333333333333333`} {
		if !strings.Contains(s, want) {
			t.Errorf("the document's JSON lacks %s:\n%s", want, s)
		}
	}
	if *d.RecoveryS != 5.999999999999998 || *d.Amplification.Measured != 3.002662490342487 {
		t.Errorf("encoding changed the document in memory: %v, %v", *d.RecoveryS, *d.Amplification.Measured)
	}
}
