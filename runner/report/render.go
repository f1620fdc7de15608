package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/trigger-test/trigger/analysis"
)

// Files of the chart in a run's folder (HTMLFile, MarkdownFile and
// JUnitFile are beside their writers).
const (
	// SVGFile is the timeline chart as SVG.
	SVGFile = "timeline.svg"
	// PNGFile is the timeline chart as PNG, 1200 × 700 pixels.
	PNGFile = "timeline.png"
)

// ResultFile is the result document's name in a run's folder; the same
// name runner.ResultFile and the CLI use.
const ResultFile = "result.json"

// ScenarioFile is the copy of the scenario's text a run keeps in its
// folder, its secrets replaced (trigger simulate --from reads it).
const ScenarioFile = "scenario.hcl"

// ReportFiles are the files WriteAll writes, in the order it writes them.
var ReportFiles = []string{SVGFile, PNGFile, HTMLFile, MarkdownFile, JUnitFile}

// WriteAll renders every report of a run into dir: timeline.svg,
// timeline.png, report.html, report.md and junit.xml. Each file is written
// to a temporary file and renamed, so a reader never sees half a report.
// A report that fails does not stop the others; the errors are joined.
// rows may be empty (a simulate document's own timeline is used then).
func WriteAll(dir string, doc analysis.Document, rows []analysis.TimelineRow) error {
	return WriteAllGated(nil, dir, doc, rows)
}

// Gate lets a caller that stops waiting for a writer make sure nothing is
// written after that: once Close returns, every write through the gate
// is refused (ErrGateClosed), and none is under way. A nil *Gate is open.
type Gate struct {
	mu     sync.Mutex
	closed bool
	// written are the names of the files written through the gate, in
	// the order they were renamed into place.
	written []string
}

// Written is the names of the files written through g so far: only those
// renamed into place, never one whose write failed (a full disk) or was
// refused. A nil *Gate records nothing.
func (g *Gate) Written() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.written...)
}

// ErrGateClosed is a write refused because its Gate was closed.
var ErrGateClosed = errors.New("not written: the caller stopped waiting")

// Close refuses every later write, after waiting for one under way (a
// file's few writes, not its rendering).
func (g *Gate) Close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

// WriteAllGated is WriteAll whose files are written through g.
func WriteAllGated(g *Gate, dir string, doc analysis.Document, rows []analysis.TimelineRow) error {
	var errs []error
	var svg []byte
	ch, chartErr := TimelineChart(doc, rows)
	if chartErr == nil {
		svg, chartErr = ch.svg()
	}
	if chartErr != nil {
		errs = append(errs, chartErr)
	} else {
		errs = append(errs,
			WriteFileGated(g, dir, SVGFile, func(w io.Writer) error { _, err := w.Write(svg); return err }),
			WriteFileGated(g, dir, PNGFile, ch.WritePNG))
	}
	shown := dir
	if abs, err := filepath.Abs(dir); err == nil {
		shown = abs
	}
	errs = append(errs,
		WriteFileGated(g, dir, HTMLFile, func(w io.Writer) error { return writeHTML(w, doc, svg, chartErr, shown) }),
		WriteFileGated(g, dir, MarkdownFile, func(w io.Writer) error { return WriteMarkdown(w, doc) }),
		WriteFileGated(g, dir, JUnitFile, func(w io.Writer) error { return WriteJUnit(w, doc) }))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// RenderDir re-renders the reports of a recorded run from dir/result.json
// and dir/timeline.csv (`trigger report DIR`). It needs only those two
// files, what a crashed or interrupted run leaves, and renders whatever
// kind of document it finds (run, simulate, plan). Without timeline.csv the
// reports are drawn from the document alone. A timeline cut short by a
// crash (a last row without its newline or with fewer fields than the
// header) is used up to its last whole row and the cut, with its row
// number, is reported as an error after every report has been written.
//
// Each file must be a regular file of at most MaxResultBytes or
// MaxTimelineBytes: a FIFO, a device (a link to /dev/zero) or a huge file
// is refused without blocking or reading it. An error in the files
// themselves (refused, malformed, cut) is an *InputError; an error
// writing the reports is not.
//
// written names the reports actually written, in ReportFiles' order, also
// when err is not nil: a report that could not be written (a full disk) is
// not among them.
func RenderDir(dir string) (written []string, err error) {
	doc, err := ReadResult(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	rows, whole, partial, err := readDirTimeline(dir)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	g := &Gate{}
	if err := WriteAllGated(g, dir, doc, rows); err != nil {
		return g.Written(), err
	}
	if partial != nil {
		return g.Written(), fmt.Errorf("report: %w", &InputError{File: TimelineFile,
			Err: fmt.Errorf("reports drawn from its first %d rows: %w", whole, partial)})
	}
	return g.Written(), nil
}

// ReadDirTimeline reads dir/timeline.csv as RenderDir does: no rows and
// no error when there is none; the rows up to a cut with the cut as
// partial when a crash cut it short; an *InputError when it is refused
// (not a regular file, too large) or holds no whole row. It streams the
// file: at most MaxTimelineRows rows are kept (ReadTimelineCapped).
func ReadDirTimeline(dir string) (rows []analysis.TimelineRow, partial, err error) {
	rows, _, partial, err = readDirTimeline(dir)
	return rows, partial, err
}

// ReadDirTimelineWhole is ReadDirTimeline that also counts the whole rows
// the file holds: more than len(rows) when it was thinned.
func ReadDirTimelineWhole(dir string) (rows []analysis.TimelineRow, whole int, partial, err error) {
	return readDirTimeline(dir)
}

// readDirTimeline is ReadDirTimeline that also counts the whole rows read.
func readDirTimeline(dir string) (rows []analysis.TimelineRow, whole int, partial, err error) {
	f, err := openInput(filepath.Join(dir, TimelineFile), TimelineFile, MaxTimelineBytes)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, 0, nil, nil
	case err != nil:
		return nil, 0, nil, err
	}
	defer f.Close()
	rows, whole, partial = ReadTimelineCapped(limitReader(f, TimelineFile, MaxTimelineBytes), MaxTimelineRows)
	if partial != nil && whole == 0 {
		return nil, 0, nil, &InputError{File: TimelineFile, Err: partial}
	}
	return rows, whole, partial, nil
}

// WriteFileAtomic writes dir/name through a temporary file and a rename,
// so that a reader, or a process killed midway, never sees half a file.
func WriteFileAtomic(dir, name string, write func(io.Writer) error) error {
	return WriteFileGated(nil, dir, name, write)
}

// WriteFileGated is WriteFileAtomic through g: the content is rendered
// first, then written and renamed only while g is open.
func WriteFileGated(g *Gate, dir, name string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if g != nil {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.closed {
			return fmt.Errorf("%s: %w", name, ErrGateClosed)
		}
	}
	tmp, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, err = buf.WriteTo(tmp)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", name, err)
	}
	if g != nil {
		g.written = append(g.written, name) // g.mu is held
	}
	return nil
}
