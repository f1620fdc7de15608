//go:build !unix

package staging

// hardFDLimit reports the limit as unknown outside Unix.
func hardFDLimit() (uint64, bool) { return 0, false }
