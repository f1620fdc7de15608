//go:build !unix

package loadgen

// RaiseFDLimit does nothing outside Unix and returns 0, 0: the limit is
// unknown, and NewDriver bounds nothing by it.
func RaiseFDLimit() (soft, hard uint64, err error) { return 0, 0, nil }
