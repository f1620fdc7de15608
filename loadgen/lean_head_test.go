package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// leanHeadSeeds are responses as servers and proxies send them, in and out
// of the form parseLeanHead reads.
var leanHeadSeeds = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain; charset=utf-8\r\nDate: Tue, 01 Dec 2026 11:00:00 GMT\r\n\r\nok",
	// haproxy's own 503 when no server is available
	"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 107\r\ncache-control: no-cache\r\ncontent-type: text/html\r\n\r\n<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle this request.\n</body></html>\n",
	"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 503 Service Unavailable\r\nRetry-After:  \t3 \r\nRetry-After: 9\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\n\r\n",
	"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\n\r\nto the close",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\nContent-Length: 0\n\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.1 200 OK\r\nContent-Len",
	"HTTP/1.1 502 Bad Gateway\r\nServer: envoy\r\nx-envoy-upstream-service-time: 3\r\ncontent-length: 0\r\n\r\n",
}

func TestParseLeanHead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		method string
		want   leanHead
		res    headParse
	}{
		{"ok", leanHeadSeeds[0], "GET", leanHead{status: 200, length: 2}, headComplete},
		{"haproxy 503", leanHeadSeeds[1], "GET", leanHead{status: 503, length: 107}, headComplete},
		{"retry-after", leanHeadSeeds[2], "GET", leanHead{status: 429, retryAfter: "2"}, headComplete},
		{"first retry-after trimmed, close among options", leanHeadSeeds[3], "GET", leanHead{status: 503, retryAfter: "3", close: true}, headComplete},
		{"204 has no body", leanHeadSeeds[4], "GET", leanHead{status: 204}, headComplete},
		{"304 has no body", leanHeadSeeds[5], "GET", leanHead{status: 304}, headComplete},
		{"no reason phrase", leanHeadSeeds[6], "GET", leanHead{status: 200}, headComplete},
		{"HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n", "HEAD", leanHead{status: 200}, headComplete},
		{"chunked", leanHeadSeeds[7], "GET", leanHead{}, headUnsupported},
		{"HTTP/1.0", leanHeadSeeds[8], "GET", leanHead{}, headUnsupported},
		{"informational", leanHeadSeeds[9], "GET", leanHead{}, headUnsupported},
		{"body to the close", leanHeadSeeds[10], "GET", leanHead{}, headUnsupported},
		{"two lengths", leanHeadSeeds[11], "GET", leanHead{}, headUnsupported},
		{"signed length", leanHeadSeeds[12], "GET", leanHead{}, headUnsupported},
		{"folded line", leanHeadSeeds[13], "GET", leanHead{}, headUnsupported},
		{"bare LF", leanHeadSeeds[14], "GET", leanHead{}, headUnsupported},
		{"cut in a header", leanHeadSeeds[16], "GET", leanHead{}, headIncomplete},
		{"cut in the status line", "HTTP/1.1 200 O", "GET", leanHead{}, headIncomplete},
		{"empty", "", "GET", leanHead{}, headIncomplete},
		{"too long a body", "HTTP/1.1 200 OK\r\nContent-Length: 1048577\r\n\r\n", "GET", leanHead{}, headUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, n, res := parseLeanHead([]byte(tc.in), tc.method)
			if res != tc.res {
				t.Fatalf("result %d, want %d", res, tc.res)
			}
			if res != headComplete {
				return
			}
			if h != tc.want {
				t.Errorf("head %+v, want %+v", h, tc.want)
			}
			if want := strings.Index(tc.in, "\r\n\r\n") + 4; n != want {
				t.Errorf("length %d, want %d", n, want)
			}
		})
	}
}

// FuzzLeanHeadAgreesWithNetHTTP checks that whatever parseLeanHead reads
// whole, http.ReadResponse reads the same way: status, Retry-After, whether
// the connection closes, and how many body bytes follow the head; and that
// what it calls incomplete net/http cannot read either.
func FuzzLeanHeadAgreesWithNetHTTP(f *testing.F) {
	for _, s := range leanHeadSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, head bool) {
		method := "GET"
		if head {
			method = "HEAD"
		}
		h, n, res := parseLeanHead(data, method)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), &http.Request{Method: method})
		switch res {
		case headIncomplete:
			if err == nil {
				t.Fatalf("incomplete for us, net/http read status %d", resp.StatusCode)
			}
			return
		case headUnsupported:
			return
		}
		if err != nil {
			t.Fatalf("we read %+v, net/http: %v", h, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != h.status {
			t.Errorf("status %d, net/http %d", h.status, resp.StatusCode)
		}
		if ra := resp.Header.Get("Retry-After"); ra != h.retryAfter {
			t.Errorf("Retry-After %q, net/http %q", h.retryAfter, ra)
		}
		if resp.Close != h.close {
			t.Errorf("close %v, net/http %v", h.close, resp.Close)
		}
		body, berr := io.ReadAll(resp.Body)
		avail := int64(len(data) - n)
		switch {
		case avail >= h.length:
			if berr != nil || int64(len(body)) != h.length {
				t.Errorf("body of %d bytes, net/http read %d (%v)", h.length, len(body), berr)
			}
		default: // the body is cut short
			if !errors.Is(berr, io.ErrUnexpectedEOF) {
				t.Errorf("body of %d bytes with %d there, net/http: %d bytes, %v", h.length, avail, len(body), berr)
			}
		}
	})
}
