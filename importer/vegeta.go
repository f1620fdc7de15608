package importer

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Vegeta reads vegeta's HTTP targets format: a line "METHOD URL", then
// header lines "Name: value", then an optional "@path" naming the body's
// file (relative to dir); targets are separated by blank lines, and a line
// starting with # is a comment. At most MaxInput bytes are read, and a
// body file is read up to maxBody bytes.
func Vegeta(r io.Reader, dir string) ([]Recorded, error) {
	in := newCapped(r)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Recorded
	var cur *Recorded
	line := 0
	flush := func() error {
		if cur == nil {
			return nil
		}
		if err := check(*cur); err != nil {
			return fmt.Errorf("importer: vegeta targets line %d: %w", line, err)
		}
		out = append(out, *cur)
		cur = nil
		return nil
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "#"):
		case text == "":
			if err := flush(); err != nil {
				return nil, err
			}
		case isRequestLine(text):
			if err := flush(); err != nil {
				return nil, err
			}
			f := strings.Fields(text)
			cur = &Recorded{Method: strings.ToUpper(f[0]), URL: f[1]}
		case cur == nil:
			return nil, fmt.Errorf("importer: vegeta targets line %d: want \"METHOD URL\", got %q", line, text)
		case strings.HasPrefix(text, "@"):
			body, err := readBody(filepath.Join(dir, strings.TrimPrefix(text, "@")))
			if err != nil {
				return nil, fmt.Errorf("importer: vegeta targets line %d: %w", line, err)
			}
			cur.Body = body
		default:
			name, value, ok := strings.Cut(text, ":")
			if !ok || strings.TrimSpace(name) == "" {
				return nil, fmt.Errorf("importer: vegeta targets line %d: want a header \"Name: value\", \"@body-file\" or \"METHOD URL\", got %q", line, text)
			}
			cur.Header = append(cur.Header, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
		}
	}
	if err := sc.Err(); err != nil {
		if in.over {
			return nil, errTooLarge
		}
		return nil, fmt.Errorf("importer: vegeta targets: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, ErrEmpty
	}
	stripCredentials(out)
	return out, nil
}

// isRequestLine reports whether text is "METHOD URL": a method of
// letters and a URL with a scheme.
func isRequestLine(text string) bool {
	f := strings.Fields(text)
	if len(f) != 2 || !strings.Contains(f[1], "://") {
		return false
	}
	for _, r := range f[0] {
		if (r < 'A' || r > 'Z') && (r < 'a' || r > 'z') {
			return false
		}
	}
	return true
}

// readBody reads a body file, at most maxBody bytes.
func readBody(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBody+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxBody {
		return "", fmt.Errorf("body file %s is longer than %d bytes", path, maxBody)
	}
	return string(b), nil
}
