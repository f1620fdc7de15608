package main

import (
	"io"
	"strings"
	"testing"
	"time"

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
	if _, _, _, err := parseFlags([]string{"-discipline", "random"}, io.Discard); err == nil || !strings.Contains(err.Error(), "adaptive_lifo") {
		t.Fatalf("unknown discipline: %v", err)
	}
}
