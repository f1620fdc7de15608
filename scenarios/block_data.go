package scenarios

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/trigger-test/trigger/vocab"
)

// A data "NAME" block names a file of rows (CSV with a header row, or JSON
// lines, one object per line) that the target's url, headers and body use
// as data.NAME.COLUMN: each logical request draws a row, in order or at
// random, and its retries resend it. The file is read whole, within
// bounds, while the scenario is decoded, so an unknown column is a
// diagnostic at its reference and a missing file stops the run before any
// load.

// Limits on data files.
const (
	// MaxDataSets is the most data blocks a scenario may have.
	MaxDataSets = 8
	// MaxDataBytes is the largest data file read, in bytes (64 MiB).
	MaxDataBytes = 64 << 20
	// MaxDataRows is the most rows a data file may hold.
	MaxDataRows = 1 << 20
	// MaxDataColumns is the most columns a data file may hold.
	MaxDataColumns = 64
)

// Data orders: data.order.
const (
	DataSequential = "sequential" // rows in the file's order, wrapping around (default)
	DataRandom     = "random"     // a row drawn at random for each logical request
)

var dataOrders = []string{DataSequential, DataRandom}

// dataSchema is a data block's.
var dataSchema = &hcl.BodySchema{Attributes: attrs("file", "order")}

// decodeData decodes the data blocks and reads their files; each data
// set's columns get a slot of the target's slot table (d.dataSlots).
func (d *decoder) decodeData(top *body) []vocab.DataSet {
	var out []vocab.DataSet
	for i, blk := range top.blocks("data", MaxDataSets) {
		path := fmt.Sprintf("data[%d]", i)
		b := d.open("data", path, blk.Body, blk.DefRange, schemaOf("data"))
		d.src.elems[path+".name"] = blk.LabelRanges[0]
		named := d.checkName(blk, "data", "Invalid data name", "names the data set in data.NAME.COLUMN")
		for _, prev := range out {
			if prev.Name == blk.Labels[0] {
				d.errorf(blk.LabelRanges[0].Ptr(), "Duplicate data set", "A data set named %q is already declared; give each its own name.", prev.Name)
				named = false
			}
		}
		ds := vocab.DataSet{Name: blk.Labels[0], File: b.str("file", "")}
		order, _ := enumValue(d, b.sub("order"), "data order", b.str("order", DataSequential), DataSequential, dataOrders,
			func(s string) (string, error) { return s, nil })
		ds.Random = order == DataRandom
		b.require("file", `the file of rows, e.g. file = "users.csv" (a header row, then one row per line) or "users.jsonl" (one JSON object per line), relative to the scenario's folder.`)
		if ds.File != "" && !d.src.failed[path+".file"] {
			cols, rows, err := d.readDataFile(ds.File)
			switch {
			case errors.Is(err, ErrOutsideFolder):
				b.fail("file", "Data file outside the scenario's folder", "%s", err)
			case err != nil:
				b.fail("file", "Unusable data file", "%s", err)
			}
			ds.Columns, ds.Rows = cols, rows
		}
		if !named || d.src.failed[path+".file"] || ds.File == "" {
			d.badData = append(d.badData, ds.Name)
			continue
		}
		out = append(out, ds)
		k := len(out) - 1
		cols := map[string]int{}
		for c, name := range ds.Columns {
			cols[name] = len(d.slots)
			d.slots = append(d.slots, vocab.Slot{Value: vocab.PerDataColumn, Name: dataRef(ds.Name, name), Data: k, Column: c})
		}
		d.dataSlots = append(d.dataSlots, cols)
	}
	return out
}

// dataRef is how a scenario spells a data column: data.NAME.COLUMN, or
// data.NAME["COLUMN"] when COLUMN is no identifier.
func dataRef(set, column string) string {
	if isIdentifier(column) {
		return "data." + set + "." + column
	}
	return fmt.Sprintf("data.%s[%q]", set, column)
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r == '-' || r >= '0' && r <= '9')) {
			return false
		}
	}
	return s != ""
}

// dataValues are the data sets' columns as the target's expressions see
// them: each its slot's marker.
func (d *decoder) dataValues() cty.Value {
	sets := map[string]cty.Value{}
	for k, cols := range d.dataSlots {
		vals := map[string]cty.Value{}
		for name, slot := range cols {
			vals[name] = cty.StringVal(vocab.Marker(slot))
		}
		sets[d.data[k].Name] = cty.ObjectVal(vals)
	}
	return cty.ObjectVal(sets)
}

// checkDataRef checks a reference to a data column: data.NAME.COLUMN of a
// declared data set and one of its columns, in a per-request place.
func (d *decoder) checkDataRef(t hcl.Traversal) bool {
	step := func(i int) (string, bool) {
		if i >= len(t) {
			return "", false
		}
		switch s := t[i].(type) {
		case hcl.TraverseAttr:
			return s.Name, true
		case hcl.TraverseIndex:
			if s.Key.Type() == cty.String && s.Key.IsKnown() {
				return s.Key.AsString(), true
			}
		}
		return "", false
	}
	set, ok1 := step(1)
	column, ok2 := step(2)
	if !ok1 || !ok2 || len(t) != 3 {
		d.errorf(t.SourceRange().Ptr(), "Invalid reference", "Refer to a data column as data.NAME.COLUMN: the column of data set NAME in the row this logical request drew.")
		return false
	}
	if contains(d.badData, set) {
		return false // its problem is already reported
	}
	k := -1
	var names []string
	for i, ds := range d.data {
		names = append(names, ds.Name)
		if ds.Name == set {
			k = i
		}
	}
	if k < 0 {
		detail := fmt.Sprintf("There is no data set %q: declare it with a data %q block.", set, set)
		if s := closest(set, names); s != "" {
			detail = fmt.Sprintf("There is no data set %q. Did you mean %q?", set, s)
		}
		d.errorf(t.SourceRange().Ptr(), "Unknown data set", "%s", detail)
		return false
	}
	if _, ok := d.dataSlots[k][column]; !ok {
		ds := d.data[k]
		detail := fmt.Sprintf("%s has no column %q; its header row is not shown, as it does not read as column names.", ds.File, column)
		if columnNames(ds.Columns) {
			detail = fmt.Sprintf("%s has no column %q; its columns are %s.", ds.File, column, quoteList(ds.Columns))
			if s := closest(column, ds.Columns); s != "" {
				detail = fmt.Sprintf("%s has no column %q. Did you mean %q?", ds.File, column, s)
			}
		}
		d.errorf(t.SourceRange().Ptr(), "Unknown data column", "%s", detail)
		return false
	}
	if !d.perRequest {
		d.errorf(t.SourceRange().Ptr(), "Per-request value out of place",
			"%s is evaluated once per logical request: only a target's (or its requests') url, headers and body may use it.", dataRef(set, column))
		return false
	}
	return true
}

// readDataFile reads a data file: JSON lines when its name ends in .jsonl
// or .ndjson, CSV with a header row otherwise.
// Only a file within the scenario's folder or an allowed one is opened
// (fileAccess).
func (d *decoder) readDataFile(file string) ([]string, [][]string, error) {
	path := d.files.path(file)
	f, err := d.files.open(file)
	if errors.Is(err, ErrOutsideFolder) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	src, size, err := readOpened(f, path, MaxDataBytes)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	if size > MaxDataBytes {
		return nil, nil, fmt.Errorf("%s is %d bytes; a data file may have at most %d (64 MiB)", path, size, MaxDataBytes)
	}
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	var cols []string
	var rows [][]string
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		cols, rows, err = readJSONLines(path, src)
	default:
		cols, rows, err = readCSV(path, src)
	}
	if err != nil {
		return nil, nil, err
	}
	if len(rows) == 0 {
		return nil, nil, fmt.Errorf("%s has no rows", path)
	}
	return cols, rows, nil
}

// unwrapPath drops the path an os error repeats.
func unwrapPath(err error) error {
	var pe interface{ Unwrap() error }
	if errors.As(err, &pe) && pe.Unwrap() != nil {
		return pe.Unwrap()
	}
	return err
}

// readCSV reads a header row of unique, non-empty names, then rows of as
// many fields.
func readCSV(path string, src []byte) ([]string, [][]string, error) {
	r := csv.NewReader(bytes.NewReader(src))
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, fmt.Errorf("%s is empty: want a header row naming the columns, then one row per line", path)
	}
	if err != nil {
		return nil, nil, csvError(path, err)
	}
	if err := checkColumns(path, 1, header); err != nil {
		return nil, nil, err
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return header, rows, nil
		}
		if err != nil {
			return nil, nil, csvError(path, err)
		}
		if len(rows) == MaxDataRows {
			return nil, nil, fmt.Errorf("%s has more than %d rows", path, MaxDataRows)
		}
		rows = append(rows, rec)
	}
}

// csvError is a CSV reader's error as path:line: reason.
func csvError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %v", path, pe.Line, pe.Err)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// checkColumns checks a data file's column names.
func checkColumns(path string, line int, names []string) error {
	if len(names) > MaxDataColumns {
		return fmt.Errorf("%s:%d: %d columns; a data file may have at most %d", path, line, len(names), MaxDataColumns)
	}
	seen := map[string]bool{}
	for i, n := range names {
		switch {
		case strings.TrimSpace(n) == "":
			return fmt.Errorf("%s:%d: column %d has no name", path, line, i+1)
		case seen[n] && columnNames([]string{n}):
			return fmt.Errorf("%s:%d: column %q is named twice", path, line, n)
		case seen[n]:
			return fmt.Errorf("%s:%d: column %d has the name of an earlier one", path, line, i+1)
		}
		seen[n] = true
	}
	return nil
}

// readJSONLines reads one JSON object per non-empty line; the columns are
// the keys in the order first met, a row's value "" where it lacks one; a
// string value is the row's text, any other its JSON.
func readJSONLines(path string, src []byte) ([]string, [][]string, error) {
	var cols []string
	index := map[string]int{}
	var rows [][]string
	for n, line := range bytes.Split(src, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(line, &obj); err != nil || obj == nil {
			return nil, nil, fmt.Errorf("%s:%d: not a JSON object: %s", path, n+1, jsonReason(err))
		}
		if len(rows) == MaxDataRows {
			return nil, nil, fmt.Errorf("%s has more than %d rows", path, MaxDataRows)
		}
		if len(obj) > MaxDataColumns {
			return nil, nil, fmt.Errorf("%s:%d: %d keys; a data file may have at most %d columns", path, n+1, len(obj), MaxDataColumns)
		}
		row := make([]string, len(cols), max(len(cols), len(obj)))
		for _, k := range orderedKeys(line, obj) {
			c, ok := index[k]
			if !ok {
				if err := checkColumns(path, n+1, append(cols, k)); err != nil {
					return nil, nil, err
				}
				c = len(cols)
				index[k] = c
				cols = append(cols, k)
				row = append(row, "")
			}
			row[c] = jsonText(obj[k])
		}
		rows = append(rows, row)
	}
	for i := range rows {
		for len(rows[i]) < len(cols) {
			rows[i] = append(rows[i], "")
		}
	}
	return cols, rows, nil
}

func jsonReason(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

// orderedKeys are obj's keys in the order line gives them.
func orderedKeys(line []byte, obj map[string]json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(line))
	var keys []string
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		if _, ok := obj[k]; ok && !contains(keys, k) {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break
		}
	}
	return keys
}

// jsonText is a JSON value as a data column's text: a string's own text,
// null's "", any other value its compact JSON.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// columnNames reports whether names read as column names (a letter or
// underscore, then letters, digits, '_', '.' or '-', at most 64 in all),
// so a diagnostic may show them. Anything else in a header row may be a
// file's content (a credentials file's first line): a diagnostic never
// shows it.
func columnNames(names []string) bool {
	for _, n := range names {
		if len(n) == 0 || len(n) > 64 {
			return false
		}
		for i, r := range n {
			ok := r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || (i > 0 && (r == '.' || r == '-' || ('0' <= r && r <= '9')))
			if !ok {
				return false
			}
		}
	}
	return true
}
