package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclparse"

	"github.com/trigger-test/trigger/internal/filekind"
	"github.com/trigger-test/trigger/vocab"
)

// Options are what the reader of a scenario takes besides its text.
type Options struct {
	// Vars holds --var NAME=VALUE overrides (raw strings).
	Vars map[string]string
	// AllowFiles are folders, besides the scenario's own, that its data
	// and TLS files may come from (--allow-files): the operator's, never
	// the scenario's.
	AllowFiles []string
}

// Load reads, decodes and validates the scenario file at path. vars holds
// --var NAME=VALUE overrides (raw strings). The error is *Error when the
// scenario itself is invalid (syntax or semantics); other errors (file not
// readable) are wrapped os errors.
func Load(path string, vars map[string]string) (*Scenario, error) {
	return LoadWith(path, Options{Vars: vars})
}

// LoadWith is Load with the reader's options.
func LoadWith(path string, o Options) (*Scenario, error) {
	src, err := ReadSource(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseWith(path, src, o)
	if err != nil {
		return nil, err
	}
	s.File = path
	return s, nil
}

// ReadSource reads a scenario's text as Load does, for a caller that
// edits it before Parse (trigger simulate --from): bounded to
// MaxFileBytes (a larger file is an *Error), a pipe within its timeout.
func ReadSource(path string) ([]byte, error) {
	src, size, err := readBounded(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("load scenario: %w", err)
	}
	if size > MaxFileBytes {
		diag := tooLarge(path, src, size)
		return nil, newError(hcl.Diagnostics{diag}, map[string]*hcl.File{path: snippetFile(src, diag.Subject)})
	}
	return src, nil
}

// readBounded reads at most limit+1 bytes of the file at path (a larger
// file is refused unread) and returns them with the file's size.
//
// A path that is not a regular file (a FIFO, a process substitution's
// pipe, a device) is opened without waiting for a writer (openNoWait) and
// read within pipeReadTimeout, waiting that long at most for a writer to
// come: a FIFO nobody writes to used to hang `trigger plan` for ever. One
// that gives nothing within it is an error.
func readBounded(path string, limit int64) ([]byte, int64, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, 0, err
	}
	return readOpened(f, path, limit)
}

// readOpened is readBounded of a file already opened without waiting; it
// closes f.
func readOpened(f *os.File, path string, limit int64) ([]byte, int64, error) {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if fi.Mode().IsRegular() {
		src, err := io.ReadAll(io.LimitReader(f, limit+1))
		if err != nil {
			return nil, 0, err
		}
		return src, max(int64(len(src)), fi.Size()), nil
	}
	deadline := time.Now().Add(pipeReadTimeout)
	if err := f.SetReadDeadline(deadline); err != nil && !errors.Is(err, os.ErrNoDeadline) {
		return nil, 0, err
	}
	var src []byte
	for {
		b, err := io.ReadAll(io.LimitReader(f, limit+1-int64(len(src))))
		src = append(src, b...)
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, 0, fmt.Errorf("%s, %s, gave no end within %s (a writer that does not finish?)", path, filekind.Of(fi.Mode()), pipeReadTimeout)
		case err != nil:
			return nil, 0, err
		case len(src) > 0 || fi.Mode()&os.ModeNamedPipe == 0:
			return src, int64(len(src)), nil
		case time.Now().After(deadline):
			return nil, 0, fmt.Errorf("%s is a named pipe (FIFO) nobody wrote to within %s", path, pipeReadTimeout)
		}
		// A FIFO without a writer reads as empty: wait for one to come.
		time.Sleep(20 * time.Millisecond)
	}
}

// pipeReadTimeout bounds the reading of a scenario that is not a regular
// file, the wait for a FIFO's writer included.
var pipeReadTimeout = 30 * time.Second

// Parse is Load for an in-memory source; filename is used in diagnostics.
// The returned Scenario has File "" (Load sets it). Problems that do not
// make the scenario invalid are in Scenario.Warnings.
func Parse(filename string, src []byte, vars map[string]string) (*Scenario, error) {
	return ParseWith(filename, src, Options{Vars: vars})
}

// ParseWith is Parse with the reader's options.
func ParseWith(filename string, src []byte, o Options) (*Scenario, error) {
	vars := o.Vars
	// Refuse what would make hcl's parser overflow its stack or take
	// long, before it sees the bytes (see prescan).
	if diag := prescan(filename, src, false); diag != nil {
		return nil, newError(hcl.Diagnostics{diag}, map[string]*hcl.File{filename: snippetFile(src, diag.Subject)})
	}
	p := hclparse.NewParser()
	f, diags := p.ParseHCL(src, filename)
	files := p.Files()
	if diags.HasErrors() || f == nil {
		// A syntax error leaves a partial body; decoding it would add
		// misleading "missing" errors, so report the syntax alone.
		return nil, newError(hintSyntax(diags, src), files)
	}

	d := newDecoder(f.Body.MissingItemRange())
	d.dir = filepath.Dir(filename)
	d.files = newFileAccess(d.dir, o.AllowFiles)
	d.diags = diags
	top := d.open("scenario file", "", f.Body, f.Body.MissingItemRange(), fileSchema)

	s := &Scenario{}
	s.Variables = d.variables(top.blocks("variable", 0), vars, files)
	d.decodeScenario(top, s)
	for name, v := range s.Variables {
		if d.webhook != "" && strings.Contains(v, d.webhook) {
			s.Variables[name] = SensitiveValue
		}
	}
	d.hideWebhookParts(s)
	// Semantic checks run even after decoding errors, so that every problem
	// is reported in one pass; values that failed to decode are skipped.
	validate(s, d)
	if d.diags.HasErrors() {
		return nil, d.redact(newError(d.diags, files))
	}
	if len(d.diags) > 0 {
		s.Warnings = d.redact(newError(d.diags, files))
	}
	s.Secrets = d.secrets
	s.KeptSource = d.keptSource(src)
	s.AllowFiles = o.AllowFiles
	s.Touches = d.touches(s)
	s.Source = src
	s.Hash = testHash(src, d.gateBody, d.notifyBody, d.campaignBody, d.expectedBody)
	return s, nil
}

// hintSyntax adds to a syntax error what was probably meant: random.int(…)
// is a method call HCL does not have; the function is random::int(…).
func hintSyntax(diags hcl.Diagnostics, src []byte) hcl.Diagnostics {
	for _, d := range diags {
		if d.Subject == nil || d.Severity != hcl.DiagError {
			continue
		}
		start := bytes.LastIndexByte(src[:min(d.Subject.Start.Byte, len(src))], '\n') + 1
		end := bytes.IndexByte(src[start:], '\n')
		if end < 0 {
			end = len(src) - start
		}
		if bytes.Contains(src[start:start+end], []byte("random.int(")) {
			d.Detail += " A random whole number is a function call: write random::int(LO, HI), not random.int(LO, HI)."
		}
	}
	return diags
}

// snippetFile is the file a diagnostic found before parsing renders its
// snippet from: src up to the end of the subject's line, and no more than
// a few hundred bytes past the subject (a hostile file may be one line of
// a megabyte).
func snippetFile(src []byte, subject *hcl.Range) *hcl.File {
	end := subject.End.Byte
	for end < len(src) && end < subject.End.Byte+200 && src[end] != '\n' {
		end++
	}
	return &hcl.File{Bytes: src[:end], Body: hcl.EmptyBody()}
}

// newError sorts and deduplicates diags into an *Error.
func newError(diags hcl.Diagnostics, files map[string]*hcl.File) *Error {
	diags = dedupDiagnostics(append(hcl.Diagnostics(nil), diags...))
	sortDiagnostics(diags)
	return &Error{Diagnostics: diags, Files: files}
}

// decodeScenario decodes every top-level block but the variables into s,
// each with the decoder of its block_NAME.go file.
func (d *decoder) decodeScenario(top *body, s *Scenario) {
	if blk := top.one("scenario", true, `name the test, e.g. scenario "checkout-spike" { description = "..." }.`); blk != nil {
		d.decodeScenarioBlock(blk, s)
	}
	s.Data = d.decodeData(top)
	d.data = s.Data
	if blk := top.one("target", true, `the service under test, e.g. target { url = "http://127.0.0.1:8080/work"  allow_hosts = ["127.0.0.1"] }.`); blk != nil {
		s.Target = d.decodeTarget(blk)
		if len(d.slots) > len(vocab.FixedSlots()) {
			s.Target.Slots = d.slots
		}
	}
	if blk := top.one("client", true, `how the clients behave, at least client { timeout = "1s" }.`); blk != nil {
		s.Client = d.decodeClient(blk)
	}
	for i, blk := range top.blocks("layer", 0) {
		s.Layers = append(s.Layers, d.decodeLayer(i, blk))
	}
	if blk := top.one("service", true, `what you believe of the service, e.g. service { capacity = 200 } in requests per second.`); blk != nil {
		s.Service = d.decodeService(blk)
	}
	s.Fault = d.decodeFault(top)
	if blk := top.one("load", true, `the demand to offer, e.g. load { baseline = 50  spike { multiplier = 5  duration = "10s" } }.`); blk != nil {
		s.Load = d.decodeLoad(blk, s.Fault)
	}
	if blk := top.one("prometheus", false, ""); blk != nil {
		s.Prometheus = d.decodePrometheus(blk)
	}
	s.Recovery = Recovery{SuccessRatio: DefaultSuccessRatio, Hold: DefaultHold}
	if blk := top.one("recovery", false, ""); blk != nil {
		s.Recovery = d.decodeRecovery(blk)
	}
	if blk := top.one("on_trap", false, ""); blk != nil {
		s.OnTrap = d.decodeOnTrap(blk)
	}
	if blk := top.one("gate", false, ""); blk != nil {
		s.Gate = d.decodeGate(blk)
	}
	if blk := top.one("notify", false, ""); blk != nil {
		s.Notify = d.decodeNotify(blk)
	}
	if blk := top.one("campaign", false, ""); blk != nil {
		s.Campaign = d.decodeCampaign(blk)
	}
	if blk := top.one("expected_spike", false, ""); blk != nil {
		s.ExpectedSpike = d.decodeExpectedSpike(blk)
	}
	for i, blk := range top.blocks("stop_when", 0) {
		if i == MaxStopWhen {
			d.errorf(blk.DefRange.Ptr(), "Too many stop_when blocks",
				"A scenario may have at most %d stop_when blocks; this is one more. Combine conditions in one query with \"or\".", MaxStopWhen)
			break
		}
		s.StopWhen = append(s.StopWhen, d.decodeStopWhen(i, blk))
	}
}
