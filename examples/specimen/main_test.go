package main

import (
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/trigger-test/trigger/examples/specimen/specimen"
	"github.com/trigger-test/trigger/internal/testwait"
	"github.com/trigger-test/trigger/vocab"
)

func TestParseFlags(t *testing.T) {
	// Flags win over the file; the file's other settings stay.
	c, addr, _, err := parseFlags([]string{"-config", "specimen.hcl", "-pod-rate", "50", "-gateway-retries", "1",
		"-admission-bound", "500ms", "-autoscale", "-scale-signal", "paired", "-addr", "127.0.0.1:0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if addr != "127.0.0.1:0" || c.PodRate != 50 || c.Pods != 1 || !c.Gateway.Enabled || c.Gateway.Retries != 1 ||
		c.AdmissionBound != 500*time.Millisecond || !c.Autoscaler.Enabled || c.Autoscaler.Signal != vocab.SignalPaired {
		t.Fatalf("config %+v", c)
	}
	// No flags, no file: the zero Config (System A defaults applied by New).
	c, _, _, err = parseFlags(nil, io.Discard)
	if err != nil || c.Gateway.Enabled || c.AdmissionBound != 0 || c.Pods != 0 {
		t.Fatalf("bare config %+v, %v", c, err)
	}
	if _, _, _, err := parseFlags([]string{"extra"}, io.Discard); err == nil {
		t.Fatal("stray argument accepted")
	}
	// Named values parse through vocab: any case, and an unknown one fails.
	c, _, _, err = parseFlags([]string{"-discipline", "LIFO", "-queue", "shared", "-service-time", "exponential"}, io.Discard)
	if err != nil || c.Discipline != vocab.LIFO || c.QueueMode != vocab.QueueShared || c.ServiceTime != vocab.ServiceExponential {
		t.Fatalf("named values: %+v, %v", c, err)
	}
	// The gRPC listener and its deadlines: off unless asked for.
	if c.GRPCAddr != "" || c.GRPCHonourDeadlines {
		t.Fatalf("gRPC on by default: %+v", c)
	}
	c, _, _, err = parseFlags([]string{"-grpc-addr", "127.0.0.1:9090", "-grpc-honour-deadlines"}, io.Discard)
	if err != nil || c.GRPCAddr != "127.0.0.1:9090" || !c.GRPCHonourDeadlines {
		t.Fatalf("gRPC flags: %+v, %v", c, err)
	}
	if _, _, _, err := parseFlags([]string{"-discipline", "random"}, io.Discard); err == nil || !strings.Contains(err.Error(), "adaptive_lifo") {
		t.Fatalf("unknown discipline: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The command serves specimen.Work/Do on -grpc-addr beside HTTP, and
// stops both at the end of its context.
func TestRunServesGRPC(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0", "-pod-rate", "1000"}, &stderr)
	}()
	addr := regexp.MustCompile(`serving gRPC /specimen.Work/Do on (\S+) `)
	var m []string
	testwait.For(t, 10*time.Second, time.Millisecond, "the gRPC listener announced", func() bool {
		m = addr.FindStringSubmatch(stderr.String())
		return m != nil
	})
	conn, err := grpc.NewClient("passthrough:///"+m[1], grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := dynamicpb.NewMessage(specimen.WorkFile().Messages().ByName("WorkRequest"))
	reply := dynamicpb.NewMessage(specimen.WorkFile().Messages().ByName("WorkReply"))
	if err := conn.Invoke(t.Context(), specimen.GRPCMethod, req, reply); err != nil {
		t.Fatalf("call: %v (stderr %q)", err, stderr.String())
	}
	cancel()
	if err := testwait.Receive(t, done, 30*time.Second, "run to return after its context ended"); err != nil {
		t.Fatalf("run: %v", err)
	}
}
