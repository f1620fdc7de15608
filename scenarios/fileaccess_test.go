package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// withData is minimal reading a data file named FILE, sending its user
// column.
func withData(file string) string {
	return strings.Replace(minimal, `scenario "min" {}`, `scenario "min" {}
data "rows" { file = "`+file+`" }`, 1) + "service { capacity = 100 }\n" + `
# a request per row
` + ""
}

// TestFilesStayInTheScenarioFolder: the audit's reproductions: a data
// file given as an absolute path, with "../", or as a link out of the
// scenario's folder was read (plan printed a credentials file's first
// line; a run sent its rows to the target). Each is refused now, unless
// the operator allows the folder it is in; a file in the folder, or in a
// sub-folder, or a link that stays in it, is read.
func TestFilesStayInTheScenarioFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "scenario")
	outside := filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(dir, "sub"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(outside, "credentials.csv"), "user\nAKIA-SECRET-LINE\n")
	writeFile(t, filepath.Join(dir, "rows.csv"), "user\nann\n")
	writeFile(t, filepath.Join(dir, "sub", "rows.csv"), "user\nbob\n")
	if err := os.Symlink(filepath.Join(outside, "credentials.csv"), filepath.Join(dir, "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("rows.csv", filepath.Join(dir, "inside.csv")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		file  string
		allow []string
		ok    bool
	}{
		{"in the folder", "rows.csv", nil, true},
		{"in a sub-folder", "sub/rows.csv", nil, true},
		{"a link that stays in", "inside.csv", nil, true},
		{"absolute, outside", filepath.Join(outside, "credentials.csv"), nil, false},
		{"up and out", "../home/credentials.csv", nil, false},
		{"a link out", "link.csv", nil, false},
		// The operator's --allow-files lets a folder in, by its path.
		{"absolute, allowed", filepath.Join(outside, "credentials.csv"), []string{outside}, true},
		{"up and out, allowed", "../home/credentials.csv", []string{outside}, true},
		// An allowed folder does not make a link in the scenario's
		// folder leading there acceptable: name the allowed path.
		{"a link out, allowed", "link.csv", []string{outside}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(withData(tc.file), `url         = "http://127.0.0.1:8080/"`, `url         = "http://127.0.0.1:8080/?u=${data.rows.user}"`, 1)
			s, err := ParseWith(filepath.Join(dir, "s.hcl"), []byte(src), Options{AllowFiles: tc.allow})
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if len(s.Data) != 1 || len(s.Data[0].Rows) != 1 {
					t.Fatalf("data = %+v", s.Data)
				}
				return
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v; want a diagnostic", err)
			}
			msg := renderText(t, se)
			if !strings.Contains(msg, "Data file outside the scenario's folder") || (tc.file != "link.csv" && !strings.Contains(msg, "--allow-files")) {
				t.Errorf("the diagnostic does not say why or how:\n%s", msg)
			}
			if strings.Contains(msg, "AKIA-SECRET-LINE") {
				t.Errorf("the diagnostic shows the file's content:\n%s", msg)
			}
		})
	}
}

// No diagnostic shows a data file's header row unless it reads as column
// names: a credentials file in the scenario's folder, read as data, used
// to have its first line printed by plan ("its columns are ...").
func TestDiagnosticsShowNoFileContent(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "creds.csv"), "aws_secret_access_key=AKIA-SECRET-LINE\nx\n")
	src := strings.Replace(withData("creds.csv"), `url         = "http://127.0.0.1:8080/"`, `url         = "http://127.0.0.1:8080/?u=${data.rows.user}"`, 1)
	_, err := Parse(filepath.Join(dir, "s.hcl"), []byte(src), nil)
	var se *Error
	if !errors.As(err, &se) {
		t.Fatalf("err = %v; want a diagnostic", err)
	}
	msg := renderText(t, se)
	if strings.Contains(msg, "AKIA") || !strings.Contains(msg, "not shown") {
		t.Errorf("the diagnostic shows the header row, or does not say it is hidden:\n%s", msg)
	}
}

// TLS files are read like data files are: from the scenario's folder,
// regular files only, at most 1 MiB, refused at once otherwise:
// ca_file = "/dev/zero" ran out of memory, a FIFO held the run past
// SIGTERM.
func TestTLSFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ca.pem"), "a stand-in")
	writeFile(t, filepath.Join(dir, "big.pem"), strings.Repeat("x", 1<<20+1))
	cases := []struct{ name, file, want string }{
		{"a small file in the folder", "ca.pem", ""},
		{"too large", "big.pem", "1 MiB"},
		{"outside", "/etc/hostname", "TLS file outside the scenario's folder"},
		// /dev is allowed below, so that the device is opened.
		{"a device", "/dev/zero", "character device"},
	}
	if runtime.GOOS != "windows" {
		fifo := filepath.Join(dir, "fifo.pem")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.pem")); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, file, want string }{"a FIFO", "fifo.pem", "named pipe"},
			struct{ name, file, want string }{"a link to a device", "zero.pem", "TLS file outside the scenario's folder"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(minimal, `allow_hosts = ["127.0.0.1"]`, `allow_hosts = ["127.0.0.1"]
  tls { ca_file = "`+tc.file+`" }`, 1) + "service { capacity = 100 }\n"
			src = strings.Replace(src, "http://127.0.0.1", "https://127.0.0.1", 1)
			start := time.Now()
			_, err := ParseWith(filepath.Join(dir, "s.hcl"), []byte(src), Options{AllowFiles: []string{"/dev"}})
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("reading took %s", took)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error()+renderText(t, err), tc.want) {
				t.Errorf("err = %v; want one naming %q", err, tc.want)
			}
		})
	}
}

// renderText is a scenario error as the command line prints it.
func renderText(t *testing.T, err error) string {
	t.Helper()
	var se *Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	var b strings.Builder
	if rerr := se.Render(&b, 100, false); rerr != nil {
		t.Fatal(rerr)
	}
	return b.String()
}
