//go:build unix

package prom

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK, so that a FIFO put
// in place of a file returns at once instead of waiting for a writer
// (copyFile then refuses it); reads of a regular file ignore the flag.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
