package specimen_test

import (
	"flag"
	"os"
	"testing"
)

// TestMain gives every end-to-end test a slot at once (the default
// -parallel is GOMAXPROCS, 2 here): the heavy ones then wait on their own
// semaphore, one at a time, while the light recovery test runs beside them
// from the start instead of queueing behind heavy tests that hold a slot
// and wait. An explicit -test.parallel wins.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", "8")
	}
	os.Exit(m.Run())
}
