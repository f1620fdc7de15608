package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/trigger-test/trigger/vocab"
)

// hostileTarget is a raw TCP server whose every response misbehaves in
// the way mode names (its request read first):
//
//	stall-body       Content-Length 2 MiB, 1 MiB sent, then nothing
//	endless-chunked  a chunked body whose chunks never end
//	endless-header   a header line that never ends
//	1xx-flood        100 Continue heads, one after the other, forever
//	trickle          the head one byte per 100 ms
//
// A connection's writer stops when the client closes it, or after 30 s.
func hostileTarget(t *testing.T, mode string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serveHostile(c, mode)
		}
	}()
	return "http://" + ln.Addr().String()
}

func serveHostile(c net.Conn, mode string) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
		return
	}
	chunk := []byte(strings.Repeat("a", 64<<10))
	write := func(b []byte) bool { _, err := c.Write(b); return err == nil }
	switch mode {
	case "stall-body":
		write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2097152\r\n\r\n"))
		for range 16 {
			write(chunk)
		}
		time.Sleep(30 * time.Second)
	case "endless-chunked":
		write([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"))
		for write([]byte("4\r\nabcd\r\n")) {
			time.Sleep(10 * time.Millisecond)
		}
	case "endless-header":
		write([]byte("HTTP/1.1 200 OK\r\nX-Endless: "))
		for write(chunk) {
		}
	case "1xx-flood":
		for write([]byte("HTTP/1.1 100 Continue\r\n\r\n")) {
		}
	case "trickle":
		for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") {
			if !write([]byte{b}) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// No misbehaving response counts as a success, and none takes more than
// its deadline: each is a timeout (or, for a head past 1 MiB, a failure
// of its own), on the lean transport and on net/http's. A body is a
// success only once it has arrived whole; a stall after its first MiB
// used to count as one.
func TestHostileResponsesAreNotSuccesses(t *testing.T) {
	for _, mode := range []string{"stall-body", "endless-chunked", "endless-header", "1xx-flood", "trickle"} {
		for _, lean := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/lean=%v", mode, lean), func(t *testing.T) {
				t.Parallel()
				url := hostileTarget(t, mode)
				cfg := Config{
					Request:  Request{URL: url + "/work"},
					Stages:   []Stage{Constant(time.Second, 4)},
					Arrivals: vocab.Uniform,
					Timeout:  500 * time.Millisecond,
				}
				if !lean {
					nt := NewTransport(DefaultTransportOptions())
					t.Cleanup(nt.CloseIdleConnections)
					cfg.Transport = nt
				}
				start := time.Now()
				d := runDriver(t, cfg)
				tot := checkAccounting(t, d)
				if tot.FirstOutcomes[vocab.OutcomeOK] != 0 || tot.Sent != 4 {
					t.Errorf("%d of %d first attempts succeeded; outcomes %v", tot.FirstOutcomes[vocab.OutcomeOK], tot.Sent, tot.FirstOutcomes)
				}
				if took := time.Since(start); took > 5*time.Second {
					t.Errorf("took %s for 4 attempts of 500 ms", took)
				}
				t.Logf("outcomes %v", tot.FirstOutcomes)
			})
		}
	}
}

// The lean transport's head bound: an endless header line fails the
// attempt once 1 MiB is read, before its deadline, and holds no more
// than that.
func TestLeanHeadIsBounded(t *testing.T) {
	url := hostileTarget(t, "endless-header")
	lt := NewLeanTransport(DefaultTransportOptions())
	defer lt.CloseIdleConnections()
	req, _ := http.NewRequest(http.MethodGet, url+"/", nil)
	lr, err := newLeanRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = lt.attempt(context.Background(), lr, nil, time.Now().Add(20*time.Second))
	if err == nil || !strings.Contains(err.Error(), "longer than 1 MiB") {
		t.Fatalf("attempt: %v, want the head bound's error", err)
	}
}
