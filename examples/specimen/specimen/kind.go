package specimen

import (
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Kind is the kind of an attempt arriving at the pods, from its headers.
type Kind uint8

// Attempt kinds, the values of label kind of specimen_ingress_total.
const (
	KindFirst  Kind = iota // X-Attempt: 1, or no X-Attempt header
	KindRetry              // X-Attempt ≥ 2, or X-Gateway-Attempt ≥ 2
	KindTracer             // X-Attempt: 0 (a wait tracer)
	numKinds
)

// String returns the metric label of k.
func (k Kind) String() string {
	switch k {
	case KindFirst:
		return "first"
	case KindRetry:
		return "retry"
	case KindTracer:
		return "tracer"
	}
	return "unknown"
}

// Wire headers (docs/design.md, "Wire headers and metric names").
const (
	// HeaderAttempt is the client's attempt number: 1 first, 0 tracer.
	HeaderAttempt = "X-Attempt"
	// HeaderGatewayAttempt is the gateway's upstream try number, 1 first.
	HeaderGatewayAttempt = "X-Gateway-Attempt"
	// HeaderDeadline is the time the client will still wait, in ms.
	HeaderDeadline = "X-Deadline-Ms"
	// HeaderReason names the reason of a refusal in its response.
	HeaderReason = "X-Specimen-Reason"
)

// ClassifyAttempt returns the kind of an attempt from its client attempt
// number and gateway try number (both as sent; "" when absent). A gateway
// try ≥ 2 is a retry whatever the client sent, so that first attempts at the
// pods equal the clients' first attempts. Unparsable values count as absent.
func ClassifyAttempt(attempt, gatewayAttempt string) Kind {
	if g, err := strconv.Atoi(gatewayAttempt); err == nil && g >= 2 {
		return KindRetry
	}
	n, err := strconv.Atoi(attempt)
	switch {
	case err != nil || n == 1:
		return KindFirst
	case n == 0:
		return KindTracer
	case n >= 2:
		return KindRetry
	}
	return KindFirst
}

// deadlineOf returns the absolute deadline carried by X-Deadline-Ms, counted
// from arrival, or the zero time when the header is absent or invalid.
func deadlineOf(h http.Header, arrived time.Time) time.Time {
	v := h.Get(HeaderDeadline)
	if v == "" {
		return time.Time{}
	}
	ms, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(ms) || ms > 1e12 {
		return time.Time{}
	}
	if ms < 0 {
		ms = 0
	}
	return arrived.Add(time.Duration(ms * float64(time.Millisecond)))
}

// Refusal reasons, the values of label reason of specimen_rejected_total.
const (
	reasonAdmission  = "admission"
	reasonDeadline   = "deadline"
	reasonDisconnect = "disconnect"
	reasonCoDel      = "codel"
	reasonLimit      = "limit"
	reasonQueueFull  = "queue_full"
)

// reasons lists every refusal reason in a fixed order.
var reasons = [...]string{reasonAdmission, reasonDeadline, reasonDisconnect, reasonCoDel, reasonLimit, reasonQueueFull}

func reasonIndex(r string) int {
	for i, s := range reasons {
		if s == r {
			return i
		}
	}
	panic("specimen: unknown reason " + r)
}

// atomicFloat is a float64 readable and writable without a lock.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) Load() float64   { return math.Float64frombits(f.bits.Load()) }
func (f *atomicFloat) Store(v float64) { f.bits.Store(math.Float64bits(v)) }
