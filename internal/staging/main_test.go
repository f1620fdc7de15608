package staging_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every goroutine a test starts, the package's included, must have ended
// when the tests are over.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
