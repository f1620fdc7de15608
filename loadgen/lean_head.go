package loadgen

import (
	"bytes"
	"strconv"
	"strings"
)

// leanHead is what an attempt needs of a response head.
type leanHead struct {
	status     int
	retryAfter string // the first Retry-After value, trimmed ("" when none)
	length     int64  // body bytes that follow the head
	close      bool   // the server closes the connection after this response
}

// headParse is the result of parseLeanHead.
type headParse int

const (
	headComplete    headParse = iota // a whole head in the common form: h and n are set
	headIncomplete                   // no whole head yet: read more
	headUnsupported                  // a form left to http.ReadResponse
)

// parseLeanHead parses the HTTP/1.1 response head at the start of b, sent
// for a request with method, and returns it with its length in bytes
// (through the empty line that ends it). It reads the common form only
// and says headUnsupported for anything else, which the caller then hands
// to http.ReadResponse unread, so every response is understood as net/http
// understands it (FuzzLeanHeadAgreesWithNetHTTP checks the two agree on
// everything parseLeanHead accepts). The common form:
//
//   - the status line "HTTP/1.1 NNN reason" with NNN from 200 to 599;
//   - header lines "Name: value" ending in CRLF, names of token
//     characters, values of visible characters, spaces, tabs and obs-text,
//     no folded lines;
//   - a body of a known length: at most one Content-Length of digits (at
//     most maxFastBody), or none for a HEAD request or a 204 or 304 response;
//     no Transfer-Encoding (chunked bodies go to net/http) and no body
//     that ends with the connection.
//
// The connection closes after the response when a Connection header lists
// "close"; Retry-After is its first value, as http.Header.Get gives it.
// It allocates only the Retry-After string, when there is one.
func parseLeanHead(b []byte, method string) (h leanHead, n int, res headParse) {
	line, rest, res := cutLine(b)
	if res != headComplete {
		return h, 0, res
	}
	// "HTTP/1.1 " NNN [ " " reason ]
	if len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || (len(line) > 12 && line[12] != ' ') {
		return h, 0, headUnsupported
	}
	code := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return h, 0, headUnsupported
		}
		code = code*10 + int(c-'0')
	}
	if code < 200 || code > 599 {
		return h, 0, headUnsupported
	}
	for _, c := range line[12:] {
		if !fieldValueByte(c) {
			return h, 0, headUnsupported
		}
	}
	h.status = code
	n = len(b) - len(rest)
	length := int64(-1)
	sawRetryAfter := false
	for {
		line, rest, res = cutLine(b[n:])
		if res != headComplete {
			return h, 0, res
		}
		n = len(b) - len(rest)
		if len(line) == 0 {
			break // the empty line: the head is whole
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return h, 0, headUnsupported // no name, or a folded line
		}
		name, value := line[:colon], trimOWS(line[colon+1:])
		for _, c := range name {
			if !tokenByte(c) {
				return h, 0, headUnsupported
			}
		}
		for _, c := range value {
			if !fieldValueByte(c) {
				return h, 0, headUnsupported
			}
		}
		switch {
		case asciiEqualFold(name, "Content-Length"):
			if length >= 0 || len(value) == 0 || len(value) > 18 {
				return h, 0, headUnsupported
			}
			v, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || value[0] == '+' || value[0] == '-' {
				return h, 0, headUnsupported
			}
			length = v
		case asciiEqualFold(name, "Transfer-Encoding"):
			return h, 0, headUnsupported
		case asciiEqualFold(name, "Connection"):
			h.close = h.close || listsClose(value)
		case asciiEqualFold(name, "Retry-After"):
			if !sawRetryAfter && len(value) > 0 {
				h.retryAfter = string(value)
			}
			sawRetryAfter = true
		}
	}
	switch {
	case method == "HEAD" || code == 204 || code == 304:
		h.length = 0
	case length < 0 || length > maxFastBody:
		return h, 0, headUnsupported // a body to the close, or one too long to read whole
	default:
		h.length = length
	}
	return h, n, headComplete
}

// cutLine cuts b at its first CRLF: the line before it and the bytes after
// it (headComplete); headIncomplete when b holds no LF yet, headUnsupported
// for a line that ends in a bare LF.
func cutLine(b []byte) (line, rest []byte, res headParse) {
	i := bytes.IndexByte(b, '\n')
	switch {
	case i < 0:
		return nil, nil, headIncomplete
	case i == 0 || b[i-1] != '\r':
		return nil, nil, headUnsupported
	}
	return b[:i-1], b[i+1:], headComplete
}

// trimOWS trims the optional white space (spaces and tabs) around a value.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// tokenByte reports whether c may appear in a header name (RFC 9110 tchar).
func tokenByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return c != 0 && strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// fieldValueByte reports whether c may appear in a header value or a
// reason phrase: a visible character, a space, a tab or obs-text.
func fieldValueByte(c byte) bool {
	return c == '\t' || (c >= ' ' && c != 0x7f)
}

// asciiEqualFold reports whether b equals s ignoring ASCII case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// listsClose reports whether a Connection header value lists the "close"
// option (options are comma-separated, case-insensitive).
func listsClose(v []byte) bool {
	for len(v) > 0 {
		opt := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			opt, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		if asciiEqualFold(trimOWS(opt), "close") {
			return true
		}
	}
	return false
}
