package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/trigger-test/trigger/analysis"
)

// TimelineFile is the name of the per-second timeline in a run's folder.
const TimelineFile = "timeline.csv"

// timelineFields are the CSV columns, in the order of TimelineRow's
// fields, named by their csv tags (a field tagged csv:"-" is no column).
var timelineFields = func() []reflect.StructField {
	t := reflect.TypeFor[analysis.TimelineRow]()
	out := make([]reflect.StructField, 0, t.NumField())
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("csv"); tag != "" && tag != "-" {
			out = append(out, t.Field(i))
		}
	}
	return out
}()

// TimelineWriter appends rows to timeline.csv, flushing every row so that
// a crash loses at most the second being measured.
type TimelineWriter struct {
	w        *csv.Writer
	row      []string
	requests int // requests of the mix with columns of their own, after TimelineRow's
}

// NewTimelineWriter writes the header and returns the writer. With the
// names of a mix's requests (two or more), each request gets its columns
// after the row's own (analysis.RequestColumns), filled from the row's
// Requests.
func NewTimelineWriter(w io.Writer, requests ...string) (*TimelineWriter, error) {
	tw := &TimelineWriter{w: csv.NewWriter(w), row: make([]string, len(timelineFields))}
	for i, f := range timelineFields {
		tw.row[i] = f.Tag.Get("csv")
	}
	if len(requests) > 1 {
		tw.requests = len(requests)
		for _, name := range requests {
			tw.row = append(tw.row, analysis.RequestColumns(name)...)
		}
	}
	if err := tw.flush(); err != nil {
		return nil, err
	}
	return tw, nil
}

// Write appends one second. NaN values are written as empty fields.
func (tw *TimelineWriter) Write(m analysis.TimelineRow) error {
	v := reflect.ValueOf(m)
	for i, f := range timelineFields {
		fv := v.FieldByIndex(f.Index)
		switch fv.Kind() {
		case reflect.String:
			tw.row[i] = fv.String()
		case reflect.Float64:
			x := fv.Float()
			if math.IsNaN(x) {
				tw.row[i] = ""
			} else {
				tw.row[i] = formatCount(x)
			}
		}
	}
	at := len(timelineFields)
	for i := range tw.requests {
		var vals []float64
		if i < len(m.Requests) {
			vals = m.Requests[i].Values()
		}
		for j := range requestColumnCount {
			tw.row[at] = ""
			if j < len(vals) {
				tw.row[at] = formatCount(vals[j])
			}
			at++
		}
	}
	return tw.flush()
}

// requestColumnCount is how many columns each request of a mix gets.
var requestColumnCount = len(analysis.RequestColumns(""))

// formatCount is a number as timeline.csv writes it: NaN as "".
func formatCount(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

func (tw *TimelineWriter) flush() error {
	if err := tw.w.Write(tw.row); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	tw.w.Flush()
	if err := tw.w.Error(); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// MaxTimelineRows is the most rows of a timeline read back that are kept
// in memory (20 000: five and a half hours of a run's one-second rows): a
// longer timeline is thinned as it is read (see ReadTimelineCapped), so a
// 500 MiB timeline.csv costs a reader no more memory than a short run's.
// The rows read back only draw charts; the figures a report prints come
// from result.json.
const MaxTimelineRows = 20_000

// ReadTimeline reads a timeline.csv back, at most MaxTimelineRows rows of
// it in memory (ReadTimelineCapped).
func ReadTimeline(r io.Reader) ([]analysis.TimelineRow, error) {
	rows, _, err := ReadTimelineCapped(r, MaxTimelineRows)
	return rows, err
}

// ReadTimelineCapped reads a timeline.csv back, one row at a time, keeping
// at most maxRows rows (at least 2): every row while there are no more
// than maxRows, else every stride-th row from the first, the stride
// doubling each time the rows kept would pass maxRows, so that the rows
// kept are evenly spaced over the whole run. whole is the number of whole
// rows read, kept or not.
//
// Columns are matched by name, so files with fewer or more columns (older
// or newer versions) still read; missing values are NaN. Every row must
// have as many fields as the header and end with a newline, as
// TimelineWriter writes them: a row cut by a crash (the last line without
// its newline, or with fewer fields) is an error naming its line and row
// (row 1 is the first under the header), returned with the rows before
// it.
func ReadTimelineCapped(r io.Reader, maxRows int) (rows []analysis.TimelineRow, whole int, err error) {
	tail := &tailReader{r: r}
	cr := csv.NewReader(tail)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, 0, fmt.Errorf("timeline: header: %w", err)
	}
	header = append([]string(nil), header...)
	index := make([]int, len(header)) // column → field of TimelineRow, -1 when unknown
	kinds := make([]reflect.Kind, len(header))
	// A mix's requests have columns of their own (request.NAME.first, ...):
	// reqOf[c] is the request of column c (-1: none), reqValue[c] its value.
	reqOf, reqValue := make([]int, len(header)), make([]int, len(header))
	var requests []string
	for c, name := range header {
		reqOf[c] = -1
		if req, i, ok := analysis.RequestColumnOf(name); ok {
			at := slices.Index(requests, req)
			if at < 0 {
				at, requests = len(requests), append(requests, req)
			}
			reqOf[c], reqValue[c] = at, i
		}
	}
	for c, name := range header {
		index[c] = -1
		for _, f := range timelineFields {
			if f.Tag.Get("csv") == name && len(f.Index) == 1 {
				index[c], kinds[c] = f.Index[0], f.Type.Kind()
			}
		}
	}
	keep := newRowSampler(maxRows)
	// A row is kept only once the next line (or a final newline) shows it
	// whole: the last line of a crashed run's file may be cut.
	var pending analysis.TimelineRow
	havePending := false
	for row := 1; ; row++ {
		line := row + 1
		rec, err := cr.Read()
		if err == io.EOF {
			if tail.last == '\n' {
				if havePending {
					keep.add(pending)
				}
				return keep.rows, keep.seen, nil
			}
			// The last line read has no newline: it was cut while being
			// written, however well it parsed.
			if row == 1 {
				return nil, 0, errors.New("timeline: header: cut: the file ends inside it (no newline)")
			}
			return keep.rows, keep.seen, fmt.Errorf("timeline: line %d (row %d): cut: the file ends inside it (no newline)", line-1, row-1)
		}
		if havePending {
			keep.add(pending)
			havePending = false
		}
		if err != nil {
			return keep.rows, keep.seen, fmt.Errorf("timeline: line %d (row %d): %w", line, row, err)
		}
		if len(rec) != len(header) {
			return keep.rows, keep.seen, fmt.Errorf("timeline: line %d (row %d): cut: %d fields, the header has %d", line, row, len(rec), len(header))
		}
		m := analysis.UnknownRow()
		if len(requests) > 0 {
			m.Requests = make([]analysis.RequestRow, len(requests))
		}
		v := reflect.ValueOf(&m).Elem()
		anyRequest := false
		for c, s := range rec {
			if r := reqOf[c]; r >= 0 {
				x := math.NaN()
				if s != "" {
					anyRequest = true
					if x, err = strconv.ParseFloat(s, 64); err != nil {
						return keep.rows, keep.seen, fmt.Errorf("timeline: line %d (row %d), %s: %w", line, row, header[c], err)
					}
				}
				m.Requests[r].SetValue(reqValue[c], x)
				continue
			}
			if index[c] < 0 {
				continue
			}
			fv := v.Field(index[c])
			switch kinds[c] {
			case reflect.String:
				// A copy: s shares its memory with the whole line.
				fv.SetString(strings.Clone(s))
			case reflect.Float64:
				if s == "" {
					continue
				}
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					return keep.rows, keep.seen, fmt.Errorf("timeline: line %d (row %d), %s: %w", line, row, header[c], err)
				}
				fv.SetFloat(x)
			}
		}
		if !anyRequest {
			m.Requests = nil // written without them: a row the driver gave none
		}
		pending, havePending = m, true
	}
}

// rowSampler keeps at most max rows of a stream: every stride-th row
// (counting from 0), the stride doubling, and every other row kept so far
// dropped, when one more would pass max.
type rowSampler struct {
	max    int
	stride int
	seen   int // rows offered
	rows   []analysis.TimelineRow
}

func newRowSampler(limit int) *rowSampler {
	return &rowSampler{max: max(limit, 2), stride: 1}
}

// add offers the next row of the stream.
func (s *rowSampler) add(m analysis.TimelineRow) {
	i := s.seen
	s.seen++
	if i%s.stride != 0 {
		return
	}
	if len(s.rows) == s.max {
		// Keep rows 0, 2, 4, ... of those kept: multiples of the doubled
		// stride. Row i is kept only if it is one too.
		n := 0
		for j := 0; j < len(s.rows); j += 2 {
			s.rows[n] = s.rows[j]
			n++
		}
		clear(s.rows[n:])
		s.rows = s.rows[:n]
		s.stride *= 2
		if i%s.stride != 0 {
			return
		}
	}
	s.rows = append(s.rows, m)
}

// tailReader remembers the last byte read through it: a file TimelineWriter
// wrote whole ends with a newline.
type tailReader struct {
	r    io.Reader
	last byte
}

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 {
		t.last = p[n-1]
	}
	return n, err
}
