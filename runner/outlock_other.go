//go:build !unix

package runner

import "os"

// tryLock: without flock the folder is not locked (docs/safety.md names
// the lock a promise on Unix systems).
func tryLock(*os.File) (bool, error) { return true, nil }

func unlock(*os.File) {}
