//go:build unix

package scenarios

import (
	"os"
	"syscall"
)

// openNoWait opens path for reading without waiting for a writer: opening
// a FIFO blocks until one comes, with O_NONBLOCK it returns at once (the
// runtime's poller then waits for its data, within a deadline).
func openNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// nonBlock makes an open not wait for a FIFO's writer.
const nonBlock = syscall.O_NONBLOCK
