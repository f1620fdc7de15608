//go:build !unix

package report

import "os"

// openNoBlock opens path for reading (there is no FIFO to block on here).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
