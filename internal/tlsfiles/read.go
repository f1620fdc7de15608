package tlsfiles

import (
	"fmt"
	"io"
	"os"

	"github.com/trigger-test/trigger/internal/filekind"
)

// MaxFileBytes is the largest PEM file read (1 MiB): a CA bundle of a few
// hundred certificates is far below it; ca_file = "/dev/zero" used to
// read until the process ran out of memory.
const MaxFileBytes = 1 << 20

// ReadFile reads a PEM file a scenario names: a regular file of at most
// MaxFileBytes, opened without waiting (a FIFO nobody writes to used to
// hold a run past SIGTERM), refused at once otherwise.
func ReadFile(path string) ([]byte, error) {
	f, err := openNoWait(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := CheckOpened(f, path); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes (1 MiB), more than any PEM file needs", path, MaxFileBytes)
	}
	return b, nil
}

// CheckOpened refuses an opened file that is not a regular file of at
// most MaxFileBytes.
func CheckOpened(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a regular file", path, filekind.Of(fi.Mode()))
	}
	if fi.Size() > MaxFileBytes {
		return fmt.Errorf("%s is %d bytes; a PEM file may have at most %d (1 MiB)", path, fi.Size(), MaxFileBytes)
	}
	return nil
}
