package importer

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
)

// MaxInput is the largest recording read, bytes (64 MiB).
const MaxInput = 64 << 20

// MaxRequests is the most request blocks a skeleton holds: the most
// frequent distinct requests, the others counted in its header comment.
const MaxRequests = 32

// maxBody is the longest request body kept, bytes; a longer one is cut
// and the cut noted.
const maxBody = 64 << 10

// ErrEmpty is a recording with no request in it.
var ErrEmpty = errors.New("importer: the recording holds no request")

// Recorded is one request of a recording.
type Recorded struct {
	Method string
	URL    string
	// Header is the request's headers in recorded order, names as
	// recorded.
	Header [][2]string
	Body   string
	// Stripped names the query parameters removed from URL as
	// credentials (a session, a token, a signature): see Stripped.
	Stripped []string
}

// capped reads r up to MaxInput bytes; over reports whether r held more,
// so that a recording is refused rather than cut short unseen.
type capped struct {
	r    io.Reader
	n    int64
	over bool
}

func newCapped(r io.Reader) *capped { return &capped{r: io.LimitReader(r, MaxInput+1)} }

func (c *capped) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.n > MaxInput {
		c.over = true
		return n, errTooLarge
	}
	return n, err
}

// errTooLarge is a recording larger than MaxInput.
var errTooLarge = fmt.Errorf("importer: the recording is larger than %d MiB", MaxInput>>20)

// distinct is one distinct request of a recording and how often it came.
type distinct struct {
	Recorded
	count int
	name  string
}

// key identifies a distinct request: its method, URL and body.
func (r Recorded) key() string { return r.Method + " " + r.URL + "\x00" + r.Body }

// group counts the distinct requests of recs, most frequent first (ties
// in order of first appearance).
func group(recs []Recorded) []*distinct {
	byKey := map[string]*distinct{}
	var order []*distinct
	for _, r := range recs {
		if d, ok := byKey[r.key()]; ok {
			d.count++
			continue
		}
		d := &distinct{Recorded: r, count: 1}
		byKey[r.key()] = d
		order = append(order, d)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].count > order[j].count })
	return order
}

// check refuses a request the skeleton cannot send: not http(s), no host.
func check(r Recorded) error {
	u, err := url.Parse(r.URL)
	if err != nil {
		return fmt.Errorf("importer: %q: %w", r.URL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fmt.Errorf("importer: %q: want an http:// or https:// URL with a host", r.URL)
	}
	if r.Method == "" || strings.ContainsAny(r.Method, " \t\r\n") {
		return fmt.Errorf("importer: %q: method %q", r.URL, r.Method)
	}
	return nil
}
