package loadgen

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/trigger-test/trigger/retry"
	"github.com/trigger-test/trigger/vocab"
)

// A request whose URL, header and body hold per-request values is sent
// with them filled in, once per logical request, on the lean path and on
// net/http's alike: each logical request its own id, seq and UUID, its
// Content-Length right, its retries the same bytes.
func TestPerRequestValuesAreFilledOncePerLogicalRequest(t *testing.T) {
	for _, lean := range []bool{true, false} {
		t.Run(map[bool]string{true: "lean", false: "net/http"}[lean], func(t *testing.T) {
			type seen struct{ path, key, body, id, attempt string }
			var mu sync.Mutex
			var log []seen
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				if r.ContentLength != int64(len(b)) {
					t.Errorf("Content-Length %d for a body of %d bytes", r.ContentLength, len(b))
				}
				mu.Lock()
				log = append(log, seen{r.URL.RequestURI(), r.Header.Get("Idempotency-Key"), string(b), r.Header.Get("X-Request-Id"), r.Header.Get("X-Attempt")})
				mu.Unlock()
				if r.Header.Get("X-Attempt") == "1" {
					w.WriteHeader(http.StatusInternalServerError) // every first attempt retried once
				}
			})}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Close()
			cfg := Config{
				Request: Request{Method: "POST", URL: "http://" + ln.Addr().String() + "/v1/" + vocab.PerRequestSeq.Marker() + "?u=" + vocab.PerRandomUUID.Marker(),
					Header: http.Header{"Idempotency-Key": {vocab.PerRequestID.Marker()}},
					Body:   []byte(`{"n":` + vocab.PerRequestSeq.Marker() + `,"u":"` + vocab.PerRandomUUID.Marker() + `"}`)},
				Stages:  []Stage{Constant(time.Second, 20)},
				Timeout: time.Second,
				Retry:   retry.Policy{MaxRetries: 1, On: retry.NewOutcomeSet(vocab.Outcome5xx)},
				Seed:    7,
			}
			if !lean {
				cfg.Transport = NewTransport(DefaultTransportOptions())
			}
			d, err := NewDriver(cfg)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := d.Run(ctx); err != nil {
				t.Fatal(err)
			}
			uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
			first := map[string]seen{}
			seqs := map[string]bool{}
			mu.Lock()
			defer mu.Unlock()
			for _, s := range log {
				if s.key != s.id {
					t.Fatalf("Idempotency-Key %q on request %q", s.key, s.id)
				}
				seq := s.id[strings.LastIndex(s.id, "-")+1:]
				if _, err := strconv.Atoi(seq); err != nil {
					t.Fatalf("id %q", s.id)
				}
				path, u, _ := strings.Cut(strings.TrimPrefix(s.path, "/v1/"), "?u=")
				if path != seq || !uuid.MatchString(u) || s.body != `{"n":`+seq+`,"u":"`+u+`"}` {
					t.Fatalf("request %s: path %q, body %q: values not filled in as its own", s.id, s.path, s.body)
				}
				if f, ok := first[s.id]; ok {
					if f.path != s.path || f.body != s.body {
						t.Fatalf("retry of %s sent %q %q after %q %q", s.id, s.path, s.body, f.path, f.body)
					}
					continue
				}
				first[s.id] = s
				if seqs[u] {
					t.Fatalf("UUID %s drawn for two logical requests", u)
				}
				seqs[u] = true
			}
			if len(first) < 15 || len(log) < 2*len(first) {
				t.Fatalf("%d logical requests, %d attempts; want about 20, each retried", len(first), len(log))
			}
		})
	}
}

// A target that accepts the connection and never finishes the handshake is
// no configuration error: the preflight leaves it to the warmup, after at
// most its own deadline.
func TestCheckTLSLeavesAHangingTargetToTheWarmup(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := CheckTLS(ctx, Config{Request: Request{URL: "https://" + ln.Addr().String() + "/"}}); err != nil {
		t.Errorf("CheckTLS = %v; want nil for a target that never answers", err)
	}
}
