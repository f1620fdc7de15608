package report

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/trigger-test/trigger/internal/filekind"
)

// Size limits of the files RenderDir and ReadResult read: far above what a
// run writes (a result document is tens of KiB; a timeline row is about
// 500 bytes, so 512 MiB is a year of seconds), far below what would exhaust
// memory.
const (
	MaxResultBytes   = 64 << 20  // result.json
	MaxTimelineBytes = 512 << 20 // timeline.csv
)

// InputError is an error in a file of a run's folder itself: not a
// regular file, too large, malformed, or cut short. Reading it again gives
// the same error; `trigger report` exits with the usage/input code for it.
type InputError struct {
	File string // the file's name in the folder: result.json, timeline.csv
	Err  error
}

func (e *InputError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *InputError) Unwrap() error { return e.Err }

// errTooLarge is the cause of an InputError for a file above its limit.
var errTooLarge = errors.New("too large")

// openInput opens path for reading if it is a regular file of at most
// limit bytes, and never blocks doing so: it checks the mode with os.Stat
// first (which follows a symbolic link, so a link to /dev/zero is judged
// as the device it is), then opens without blocking (O_NONBLOCK on Unix:
// a FIFO put in its place meanwhile cannot block the open) and checks the
// open file again. Read it through limitReader: it may still grow.
func openInput(path, name string, limit int64) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := checkInput(fi, name, limit); err != nil {
		return nil, err
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = checkInput(fi, name, limit)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkInput refuses anything but a regular file of at most limit bytes.
func checkInput(fi fs.FileInfo, name string, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &InputError{File: name, Err: fmt.Errorf("not a regular file (%s); trigger report reads only the files a run wrote", filekind.Of(fi.Mode()))}
	}
	if fi.Size() > limit {
		return &InputError{File: name, Err: fmt.Errorf("%w: %d bytes, at most %d are read", errTooLarge, fi.Size(), limit)}
	}
	return nil
}

// limitReader returns a reader of r that fails with an InputError once
// more than limit bytes have been read: a file that grew after it was
// checked is not read without bound.
func limitReader(r io.Reader, name string, limit int64) io.Reader {
	return &boundedReader{r: io.LimitReader(r, limit+1), name: name, limit: limit}
}

// boundedReader reads at most limit bytes of r (a LimitReader of limit+1,
// so that one byte more shows the file is longer).
type boundedReader struct {
	r           io.Reader
	name        string
	limit, read int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	if over := b.read - b.limit; over > 0 {
		return n - int(over), &InputError{File: b.name, Err: fmt.Errorf("%w: more than %d bytes", errTooLarge, b.limit)}
	}
	return n, err
}
