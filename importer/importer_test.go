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

// Credential-like query parameters are dropped from imported URLs, any
// case, the others kept as recorded (issue 32, finding 12).
func TestStripCredentialParams(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		removed  []string
	}{
		{"https://a.example/x?q=shoes&session=abc123", "https://a.example/x?q=shoes", []string{"session"}},
		{"https://a.example/x?Token=t&page=2&API_KEY=k", "https://a.example/x?page=2", []string{"Token", "API_KEY"}},
		{"https://b.example/o?X-Amz-Algorithm=AWS4&X-Amz-Credential=AK%2F1&X-Amz-Signature=ff&X-Amz-Security-Token=st",
			"https://b.example/o?X-Amz-Algorithm=AWS4", []string{"X-Amz-Credential", "X-Amz-Signature", "X-Amz-Security-Token"}},
		{"https://c.example/cb?code=c0de&state=s&access_token=a#frag", "https://c.example/cb?state=s#frag", []string{"code", "access_token"}},
		{"https://d.example/?sig=1&key=2&password=3&auth=4&secret=5&apikey=6&signature=7",
			"https://d.example/", []string{"sig", "key", "password", "auth", "secret", "apikey", "signature"}},
		{"https://e.example/search?q=token+ring&author=bob&keyboard=1", "https://e.example/search?q=token+ring&author=bob&keyboard=1", nil},
		{"https://e.example/plain", "https://e.example/plain", nil},
		// A servlet container's session in a path parameter.
		{"https://f.example/shop/cart;jsessionid=JSESS?id=7", "https://f.example/shop/cart?id=7", []string{"jsessionid"}},
		{"https://f.example/a;v=1/b;JSESSIONID=x;lang=en", "https://f.example/a;v=1/b;lang=en", []string{"JSESSIONID"}},
		{"https://f.example;x=1/a", "https://f.example;x=1/a", nil},
		// Credentials before the host, and an implicit flow's token in the fragment.
		{"https://ann:s3cret@g.example/x?id=1", "https://g.example/x?id=1", []string{"userinfo"}},
		{"https://g.example/cb#access_token=t0k&state=s", "https://g.example/cb#state=s", []string{"access_token"}},
	} {
		got, removed := stripCredentialParams(tc.in)
		if got != tc.want || strings.Join(removed, ",") != strings.Join(tc.removed, ",") {
			t.Errorf("%s: got %s, removed %q; want %s, %q", tc.in, got, removed, tc.want, tc.removed)
		}
	}
}

// A HAR whose URLs carry ?session= and a signature: the skeleton holds
// neither value, and Stripped names the parameters dropped.
func TestHARDropsCredentialParams(t *testing.T) {
	har := `{"log":{"entries":[
		{"request":{"method":"GET","url":"https://shop.example/v1/cart?session=s3ss10n-v4lue&id=7","headers":[]}},
		{"request":{"method":"GET","url":"https://shop.example/v1/cart?id=7&Signature=51gn4ture","headers":[]}}]}}`
	recs, err := HAR(strings.NewReader(har))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Skeleton(&out, "imported", "t.har", recs); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"s3ss10n-v4lue", "51gn4ture", "session=", "Signature="} {
		if strings.Contains(out.String(), s) {
			t.Errorf("the skeleton holds %q:\n%s", s, out.String())
		}
	}
	if !strings.Contains(out.String(), "https://shop.example/v1/cart?id=7") {
		t.Errorf("the skeleton lost the other parameters:\n%s", out.String())
	}
	if got := strings.Join(Stripped(recs), ","); got != "Signature,session" {
		t.Errorf("Stripped = %q, want Signature,session", got)
	}
}
