//go:build unix

package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A descriptor set that is a FIFO (or a device) is refused at once,
// unread: the reader never waits on it.
func TestGRPCDescriptorSetFIFO(t *testing.T) {
	src, err := os.ReadFile("testdata/good/grpc.hcl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "greeter.protoset"), 0o600); err != nil {
		t.Skip(err)
	}
	_, err = Parse(filepath.Join(dir, "s.hcl"), src, nil)
	var e *Error
	if !errors.As(err, &e) || e.Diagnostics[0].Summary != "Unusable descriptor set" || !strings.Contains(e.Diagnostics[0].Detail, "not a regular file") {
		t.Errorf("Parse = %v", err)
	}
}
