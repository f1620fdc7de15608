//go:build !unix

package tlsfiles

import "os"

// openNoWait opens path for reading.
func openNoWait(path string) (*os.File, error) { return os.Open(path) }
