package specimen_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain lets the end-to-end tests overlap more than the default
// -parallel (GOMAXPROCS, 2 here): they mostly wait on time-compressed
// scenarios, and the heavy ones are still limited to two at a time by their
// own semaphore. An explicit -test.parallel wins.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "4")
	}
	os.Exit(m.Run())
}
