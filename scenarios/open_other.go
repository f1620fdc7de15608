//go:build !unix

package scenarios

import "os"

// openNoWait opens path for reading.
func openNoWait(path string) (*os.File, error) { return os.Open(path) }

// nonBlock is 0 where opens do not block on FIFOs.
const nonBlock = 0
