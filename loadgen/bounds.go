package loadgen

import (
	"fmt"
	"math"
)

// FDReserve is how many open file descriptors NewDriver leaves to the rest
// of the process (listeners, the embedded Prometheus, output files, the
// driver's own https pool) when it bounds MaxInFlight by the soft
// RLIMIT_NOFILE.
const FDReserve = 128

// Bounds are the in-flight bounds a Driver enforces, as NewDriver set them
// (Driver.Bounds); the runner reports them when they are below what the
// scenario asked.
type Bounds struct {
	// MaxInFlight bounds attempts and tracers in flight together: each
	// holds a connection, one file descriptor.
	MaxInFlight int
	// MaxTracers bounds the tracers among them: MaxInFlight / 2 (0 when
	// MaxInFlight is 1: then no tracer is ever sent), so that probes
	// never take more than half the slots from the load they measure.
	MaxTracers int
	// Requested is Config.MaxInFlight with its default filled in.
	Requested int
	// FDLimit is the soft RLIMIT_NOFILE NewDriver saw after raising it to
	// the hard limit (RaiseFDLimit), descriptors; 0 when unknown (not
	// Unix, or unreadable).
	FDLimit uint64
	// Clamped is set when MaxInFlight is below Requested because
	// Requested + FDReserve descriptors exceed FDLimit; Reason says so in
	// words for the user ("" when not clamped).
	Clamped bool
	Reason  string
}

// fdLimits reads (and raises) the descriptor limit; tests replace it.
var fdLimits = RaiseFDLimit

// inFlightBounds bounds requested (Config.MaxInFlight, default filled in)
// by the soft descriptor limit soft (0 = unknown: no bound), keeping
// FDReserve descriptors for the rest of the process. A limit that leaves
// no descriptor for attempts is an error.
func inFlightBounds(requested int, soft uint64) (Bounds, error) {
	b := Bounds{MaxInFlight: requested, Requested: requested, FDLimit: soft}
	if soft > 0 {
		if soft <= FDReserve {
			return b, fmt.Errorf("loadgen: the open-file limit (RLIMIT_NOFILE) is %d descriptors: none is left for attempts once %d are kept for the process; raise it (ulimit -n)", soft, FDReserve)
		}
		if avail := min(soft-FDReserve, math.MaxInt32); uint64(requested) > avail {
			b.MaxInFlight, b.Clamped = int(avail), true
			b.Reason = fmt.Sprintf("max_in_flight lowered from %d to %d: the open-file limit (RLIMIT_NOFILE) is %d descriptors, one per attempt in flight, and %d are kept for the rest of the process; raise the limit (ulimit -n) to allow more",
				requested, b.MaxInFlight, soft, FDReserve)
		}
	}
	b.MaxTracers = b.MaxInFlight / 2
	return b, nil
}

// Bounds returns the in-flight bounds the driver enforces.
func (d *Driver) Bounds() Bounds { return d.bounds }

// MaxInFlight returns the bound on attempts and tracers in flight in
// effect: Config.MaxInFlight (or its default), lowered to what the
// descriptor limit allows (Bounds says whether and why).
func (d *Driver) MaxInFlight() int { return d.bounds.MaxInFlight }
