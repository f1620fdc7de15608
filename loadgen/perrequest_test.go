package loadgen

import (
	"context"
	"encoding/json"
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

// Data columns and random::int draws are filled in as the place they stand
// in asks, on both attempt paths: percent-encoded in a URL's path and
// query, with a line break made a space in a header, JSON-escaped where
// jsonencode put them; rows in order, wrapping around.
func TestDataValuesAreWrittenForTheirPlace(t *testing.T) {
	rows := [][]string{{"a b/c", "x\ny", `q"1`}, {"d&e", "z", `\2`}}
	slots := append(vocab.FixedSlots(),
		vocab.Slot{Value: vocab.PerDataColumn, Name: "data.d.p", Data: 0, Column: 0},
		vocab.Slot{Value: vocab.PerDataColumn, Name: "data.d.h", Data: 0, Column: 1},
		vocab.Slot{Value: vocab.PerDataColumn, Name: "data.d.j", Data: 0, Column: 2, JSON: true},
		vocab.Slot{Value: vocab.PerRandomInt, Name: "random::int(3, 4)", Lo: 3, Hi: 4})
	for _, lean := range []bool{true, false} {
		t.Run(map[bool]string{true: "lean", false: "net/http"}[lean], func(t *testing.T) {
			type seen struct{ path, query, header, body, id string }
			var mu sync.Mutex
			var log []seen
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				log = append(log, seen{r.URL.Path, r.URL.Query().Get("q"), r.Header.Get("X-H"), string(b), r.Header.Get("X-Request-Id")})
				mu.Unlock()
			})}
			go func() { _ = srv.Serve(ln) }()
			defer srv.Close()
			cfg := Config{
				Request: Request{Method: "POST", URL: "http://" + ln.Addr().String() + "/v/" + vocab.Marker(3) + "?q=" + vocab.Marker(3),
					Header: http.Header{"X-H": {vocab.Marker(4)}},
					Body:   []byte(`{"j":"` + vocab.Marker(5) + `","n":` + vocab.Marker(6) + `}`)},
				Slots:   slots,
				Data:    []vocab.DataSet{{Name: "d", Columns: []string{"p", "h", "j"}, Rows: rows}},
				Stages:  []Stage{Constant(time.Second, 10)},
				Timeout: time.Second,
				Seed:    3,
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
			mu.Lock()
			defer mu.Unlock()
			if len(log) < 5 {
				t.Fatalf("%d requests", len(log))
			}
			for _, s := range log {
				seq, _ := strconv.Atoi(s.id[strings.LastIndex(s.id, "-")+1:])
				row := rows[(seq-1)%2]
				var b struct {
					J string
					N int
				}
				if err := json.Unmarshal([]byte(s.body), &b); err != nil {
					t.Fatalf("body %q: %v", s.body, err)
				}
				if s.path != "/v/"+row[0] || s.query != row[0] || s.header != strings.ReplaceAll(row[1], "\n", " ") || b.J != row[2] || b.N < 3 || b.N > 4 {
					t.Fatalf("logical request %d: path %q query %q header %q body %q; want row %v", seq, s.path, s.query, s.header, s.body, row)
				}
			}
		})
	}
}

// A marker that stands for no slot of the table, or a data column of no
// data set, is refused when the driver is made, not sent.
func TestDriverRefusesAMarkerWithoutItsSlot(t *testing.T) {
	for _, slots := range [][]vocab.Slot{nil, append(vocab.FixedSlots(), vocab.Slot{Value: vocab.PerDataColumn, Data: 2})} {
		_, err := NewDriver(Config{Request: Request{URL: "http://127.0.0.1:1/" + vocab.Marker(3)}, Slots: slots,
			Stages: []Stage{Constant(time.Second, 1)}, Timeout: time.Second})
		if err == nil {
			t.Errorf("slots %v: NewDriver accepted marker 3", slots)
		}
	}
}
