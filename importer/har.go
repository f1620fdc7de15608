package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// HAR reads a HAR 1.2 recording (log.entries[].request) and returns its
// requests in order; at most MaxInput bytes are read. Credential-like
// query parameters (?session=, ?token=, X-Amz-Signature, ...) are removed
// from the URLs, each request's Stripped naming them.
func HAR(r io.Reader) ([]Recorded, error) {
	var h struct {
		Log struct {
			Entries []struct {
				Request struct {
					Method  string `json:"method"`
					URL     string `json:"url"`
					Headers []struct {
						Name  string `json:"name"`
						Value string `json:"value"`
					} `json:"headers"`
					PostData *struct {
						MimeType string `json:"mimeType"`
						Text     string `json:"text"`
					} `json:"postData"`
				} `json:"request"`
			} `json:"entries"`
		} `json:"log"`
	}
	in := newCapped(r)
	if err := json.NewDecoder(in).Decode(&h); err != nil {
		if in.over {
			return nil, errTooLarge
		}
		return nil, fmt.Errorf("importer: har: %w", err)
	}
	var out []Recorded
	for i, e := range h.Log.Entries {
		rec := Recorded{Method: strings.ToUpper(e.Request.Method), URL: e.Request.URL}
		for _, hd := range e.Request.Headers {
			rec.Header = append(rec.Header, [2]string{hd.Name, hd.Value})
		}
		if pd := e.Request.PostData; pd != nil {
			rec.Body = pd.Text
			if pd.MimeType != "" && !hasHeader(rec.Header, "Content-Type") {
				rec.Header = append(rec.Header, [2]string{"Content-Type", pd.MimeType})
			}
		}
		if err := check(rec); err != nil {
			return nil, fmt.Errorf("importer: har entry %d: %w", i, err)
		}
		out = append(out, rec)
	}
	if len(out) == 0 {
		return nil, ErrEmpty
	}
	stripCredentials(out)
	return out, nil
}

// hasHeader reports whether h has a header name (any case).
func hasHeader(h [][2]string, name string) bool {
	for _, kv := range h {
		if strings.EqualFold(kv[0], name) {
			return true
		}
	}
	return false
}
