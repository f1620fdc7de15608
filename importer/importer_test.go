package importer

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trigger-test/trigger/scenarios"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.hcl from the current output")

// Each recording's skeleton matches its golden file, parses as a scenario
// (with its credentials given as variables), holds no credential, and
// weights each distinct request by its count.
func TestSkeletons(t *testing.T) {
	for _, tc := range []struct {
		file, golden string
		read         func(*os.File) ([]Recorded, error)
		vars         map[string]string
		secrets      []string
		want         []scenarios.Request // name, weight, method, URL
	}{
		{"checkout.har", "checkout-har.golden.hcl", func(f *os.File) ([]Recorded, error) { return HAR(f) },
			map[string]string{"authorization": "Bearer x", "cookie": "c"}, []string{"eyJ.secret.token", "s3cr3t"},
			[]scenarios.Request{
				{Name: "post-quote", Weight: 3, Method: "POST", URL: "https://checkout.staging.example.internal/v1/quote"},
				{Name: "get-search", Weight: 1, Method: "GET", URL: "https://checkout.staging.example.internal/v1/search?q=${shoes}"},
				{Name: "get-root", Weight: 1, Method: "GET", URL: "https://static.staging.example.internal/"},
			}},
		{"checkout.targets", "checkout-vegeta.golden.hcl", func(f *os.File) ([]Recorded, error) { return Vegeta(f, "testdata") },
			map[string]string{"x_api_key": "k"}, []string{"k3y-s3cr3t"},
			[]scenarios.Request{
				{Name: "get-search", Weight: 3, Method: "GET", URL: "http://127.0.0.1:8080/v1/search?q=boots"},
				{Name: "post-order", Weight: 1, Method: "POST", URL: "http://127.0.0.1:8080/v1/order"},
			}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			recs, err := tc.read(f)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := Skeleton(&out, "imported", tc.file, recs); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != string(want) {
				t.Errorf("skeleton differs from %s (rerun with -update and read the diff):\n%s", golden, out.String())
			}
			for _, s := range tc.secrets {
				if strings.Contains(out.String(), s) {
					t.Errorf("the skeleton holds the credential %q", s)
				}
			}
			s, err := scenarios.Parse(tc.file+".hcl", out.Bytes(), tc.vars)
			if err != nil {
				t.Fatalf("the skeleton does not parse: %v\n%s", err, out.String())
			}
			if len(s.Target.Requests) != len(tc.want) {
				t.Fatalf("%d requests, want %d", len(s.Target.Requests), len(tc.want))
			}
			for i, w := range tc.want {
				g := s.Target.Requests[i]
				if g.Name != w.Name || g.Weight != w.Weight || g.Method != w.Method || g.URL != w.URL {
					t.Errorf("request %d: %s %g %s %s; want %s %g %s %s", i, g.Name, g.Weight, g.Method, g.URL, w.Name, w.Weight, w.Method, w.URL)
				}
			}
		})
	}
}

// Recordings that cannot be a skeleton are refused with a reason.
func TestBadRecordings(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		vegeta         bool
	}{
		{"empty har", `{"log": {"entries": []}}`, "no request", false},
		{"not json", `<html>`, "har", false},
		{"ftp url", `{"log": {"entries": [{"request": {"method": "GET", "url": "ftp://x/y"}}]}}`, "http://", false},
		{"vegeta header first", "X-A: b\n", "METHOD URL", true},
		{"vegeta missing body", "POST http://127.0.0.1/x\n@nope.json\n", "nope.json", true},
		{"vegeta empty", "# nothing\n\n", "no request", true},
		{"har too large", `{"log": {"entries": [` + strings.Repeat(" ", MaxInput) + `]}}`, "larger than", false},
		{"vegeta too large", "GET http://127.0.0.1/x\n" + strings.Repeat("# padding\n", MaxInput/10+1), "larger than", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.vegeta {
				_, err = Vegeta(strings.NewReader(tc.in), t.TempDir())
			} else {
				_, err = HAR(strings.NewReader(tc.in))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want one naming %q", err, tc.want)
			}
		})
	}
}
