package report

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// renderBounded runs RenderDir(dir) and fails the test if it does not
// return within a generous bound (a FIFO used to block it forever).
func renderBounded(t *testing.T, dir string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := RenderDir(dir); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("RenderDir blocked")
		return nil
	}
}

// wantInputError checks that err is an *InputError whose text says want.
func wantInputError(t *testing.T, err error, want string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want an input error saying %q", err, want)
	}
}

// Files above their size limit are refused before any byte is read
// (sparse files: nothing is written to disk).
func TestRenderDirTooLarge(t *testing.T) {
	for _, tc := range []struct {
		file  string
		limit int64
	}{
		{ResultFile, MaxResultBytes},
		{TimelineFile, MaxTimelineBytes},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := copyFixture(t, "recovered")
			if err := os.Truncate(filepath.Join(dir, tc.file), tc.limit+1); err != nil {
				t.Fatal(err)
			}
			wantInputError(t, renderBounded(t, dir), fmt.Sprintf("too large: %d bytes", tc.limit+1))
		})
	}
}

// A folder where a file should be is refused as not a regular file.
func TestRenderDirRefusesFolder(t *testing.T) {
	dir := copyFixture(t, "recovered")
	os.Remove(filepath.Join(dir, TimelineFile))
	if err := os.Mkdir(filepath.Join(dir, TimelineFile), 0o755); err != nil {
		t.Fatal(err)
	}
	wantInputError(t, renderBounded(t, dir), "not a regular file (a folder)")
}

// A timeline cut while its last row was written: the reports are drawn
// from the rows before it and the cut is an input error naming the row,
// whether the row lacks its newline or fields.
func TestRenderDirCutRow(t *testing.T) {
	for _, tc := range []struct {
		name string
		cut  func(last string) string // what is left of the last line, newline included
	}{
		// The last line parses, but its newline never came: its last
		// number may be cut short.
		{"no newline", func(last string) string { return last }},
		// The last line lost fields, then a newline came.
		{"fewer fields", func(last string) string { return last[:strings.LastIndexByte(last, ',')] + "\n" }},
		// Half a line.
		{"half a line", func(last string) string { return last[:len(last)/2] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyFixture(t, "recovered")
			path := filepath.Join(dir, TimelineFile)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
			rows := len(lines) - 1 // under the header
			last := strings.TrimSuffix(lines[len(lines)-1], "\n")
			cut := strings.Join(lines[:len(lines)-1], "") + tc.cut(last)
			if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
				t.Fatal(err)
			}
			err = renderBounded(t, dir)
			wantInputError(t, err, fmt.Sprintf("first %d rows: timeline: line %d (row %d): cut", rows-1, rows+1, rows))
			checkReports(t, dir)
		})
	}
}

// ReadTimeline on cut files: the rows before the cut, and an error naming
// the line and row of the cut.
func TestReadTimelineCut(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		rows     int
		err      string // "" = none
	}{
		{"whole", "t_s,sent\n0,5\n1,6\n", 2, ""},
		{"last row without newline", "t_s,sent\n0,5\n1,6", 1, "line 3 (row 2): cut: the file ends inside it"},
		{"last row short", "t_s,sent\n0,5\n1\n", 1, "line 3 (row 2): cut: 1 fields, the header has 2"},
		{"a row long", "t_s,sent\n0,5,9\n1,6\n", 0, "line 2 (row 1): cut: 3 fields, the header has 2"},
		{"header only", "t_s,sent\n", 0, ""},
		{"header cut", "t_s,se", 0, "header: cut"},
		{"empty", "", 0, "header: EOF"},
	} {
		rows, err := ReadTimeline(strings.NewReader(tc.in))
		if len(rows) != tc.rows {
			t.Errorf("%s: %d rows, want %d", tc.name, len(rows), tc.rows)
		}
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		}
	}
}

// limitReader lets a file grown after it was checked be read up to the
// limit, and not a byte further.
func TestLimitReader(t *testing.T) {
	for _, tc := range []struct {
		size    int
		tooLong bool
	}{
		{99, false}, {100, false}, {101, true}, {1 << 20, true},
	} {
		b, err := io.ReadAll(limitReader(strings.NewReader(strings.Repeat("x", tc.size)), "f", 100))
		var ie *InputError
		if tc.tooLong != errors.As(err, &ie) || len(b) > 100 {
			t.Errorf("%d bytes: read %d, err %v", tc.size, len(b), err)
		}
	}
}
