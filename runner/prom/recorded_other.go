//go:build !unix

package prom

import "os"

// openNoBlock opens path for reading (no FIFOs to fear off Unix).
func openNoBlock(path string) (*os.File, error) { return os.Open(path) }
