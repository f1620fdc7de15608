package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docs/safety.md names, for each promise, the tests that check it: every
// name it gives is a test (or fuzz target) that exists.
func TestSafetyDocNamesRealTests(t *testing.T) {
	t.Chdir("../..")
	doc, err := os.ReadFile("docs/safety.md")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile("`((?:Test|Fuzz)[A-Za-z0-9_]+)`").FindAllStringSubmatch(string(doc), -1)
	if len(named) < 20 {
		t.Fatalf("docs/safety.md names %d tests; want one or more per promise", len(named))
	}
	var sources strings.Builder
	err = filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "out" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range named {
		if !strings.Contains(sources.String(), "func "+m[1]+"(") {
			t.Errorf("docs/safety.md names %s, which no test file defines", m[1])
		}
	}
}
