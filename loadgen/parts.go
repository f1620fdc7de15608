package loadgen

import (
	"math"
	"math/bits"
	"time"
)

// Parts split a run's first attempts by the moment they were sent, for
// their latency over each part (the runner's phases: warmup, spike,
// observe; the driver knows them only as names). Memory is bounded: at
// most MaxParts parts of two histograms each (46 KiB a part) and
// MaxSplits splits, whatever the run's length or rate.
const (
	MaxParts  = 8  // parts named; a split naming one more is ignored
	MaxSplits = 32 // splits kept; a split beyond them is ignored
)

// Percentiles are the 50th, 95th and 99th percentiles of Count latencies,
// in seconds, from an HDR histogram that keeps values within 1 %, rounded
// to three significant digits; all 0 when Count is 0.
type Percentiles struct {
	Count         int64
	P50, P95, P99 float64 // seconds
}

// PartLatency is the latency of the first attempts sent in one part of a
// run (Driver.SplitAt), as the client saw it: from the send to the end of
// the response's body, the error, or the client giving up (a timeout
// counts at the attempt's timeout, however late its timer fired). All
// holds every first attempt that completed, whatever its outcome; OK
// those that succeeded. First attempts cut short by Run's ctx are left
// out (the run's end, not the service, ended them), and those never sent
// (dropped, refused) have no latency.
type PartLatency struct {
	Part string
	All  Percentiles
	OK   Percentiles
}

// split starts part (an index into parts.names) at at.
type split struct {
	at   time.Duration
	part int
}

// parts is the recorder's latency by part; guarded by the recorder's lock.
type parts struct {
	names   []string
	all, ok []hist // per part, made when it is named
	splits  []split
}

// splitAt starts part at at (no earlier than now): splits set before for
// at or later are dropped, and a split into the part already under way
// at at adds none.
func (p *parts) splitAt(now, at time.Duration, part string) {
	at = max(at, now)
	i := p.index(part)
	if i < 0 {
		if len(p.names) >= MaxParts {
			return
		}
		p.names = append(p.names, part)
		p.all, p.ok = append(p.all, newHist()), append(p.ok, newHist())
		i = len(p.names) - 1
	}
	n := len(p.splits)
	for n > 0 && p.splits[n-1].at >= at {
		n--
	}
	p.splits = p.splits[:n]
	if (n > 0 && p.splits[n-1].part == i) || n >= MaxSplits {
		return
	}
	p.splits = append(p.splits, split{at: at, part: i})
}

// index is the index of the part named part, −1 when none is.
func (p *parts) index(part string) int {
	for i, n := range p.names {
		if n == part {
			return i
		}
	}
	return -1
}

// record records the latency took of a first attempt sent at sent; ok
// says it succeeded. An attempt sent before the first split is in no part.
func (p *parts) record(sent, took time.Duration, ok bool) {
	part := -1
	for _, s := range p.splits {
		if s.at > sent {
			break
		}
		part = s.part
	}
	if part < 0 {
		return
	}
	p.all[part].record(took)
	if ok {
		p.ok[part].record(took)
	}
}

// latencies returns each part's latency, in the order they were named.
func (p *parts) latencies() []PartLatency {
	out := make([]PartLatency, len(p.names))
	for i, n := range p.names {
		out[i] = PartLatency{Part: n, All: p.all[i].percentiles(), OK: p.ok[i].percentiles()}
	}
	return out
}

// percentiles returns the histogram's P50, P95 and P99, each the middle
// of its counter's range (within half of 1 % of the values counted
// there), rounded to three significant digits.
func (h hist) percentiles() Percentiles {
	n := h.h.TotalCount()
	if n == 0 {
		return Percentiles{}
	}
	q := func(p float64) float64 { return round3(h.mid(h.h.ValueAtQuantile(p)) / 1e6) }
	return Percentiles{Count: n, P50: q(50), P95: q(95), P99: q(99)}
}

// mid is the middle of the range of values the histogram counts together
// with v, the highest of them (as ValueAtQuantile returns): a counter
// spans 1 µs below 2·subBuckets µs, and doubles with each doubling of
// the value above.
func (h hist) mid(v int64) float64 {
	// The sub-buckets hold 2·10^digits values, rounded up to a power of two.
	subBits := int(math.Ceil(math.Log2(2 * math.Pow(10, float64(h.h.SignificantFigures())))))
	width := int64(1) << max(bits.Len64(uint64(v))-subBits, 0)
	return float64(v) - float64(width-1)/2
}

// round3 rounds x > 0 to three significant digits (the histogram keeps
// two: more digits would be noise).
func round3(x float64) float64 {
	if x <= 0 {
		return x
	}
	scale := math.Pow(10, 2-math.Floor(math.Log10(x)))
	return math.Round(x*scale) / scale
}

// SplitAt starts a part of the run named part at at, the driver's clock
// (no earlier than now; before Run, now is 0): first attempts sent from
// then on count in that part's latency (PartLatencies) until the next
// split. Splits set before for at or later are dropped, so a later
// call can move a part's end that has not come yet. A part named when
// MaxParts already are, or a split beyond MaxSplits, is ignored: its
// attempts count in the part before. Safe for concurrent use.
func (d *Driver) SplitAt(at time.Duration, part string) {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	d.rec.parts.splitAt(d.now(), at, part)
}

// PartLatencies returns the latency of the first attempts sent in each part
// named by SplitAt, in the order they were named, a part without attempts
// included; nil when SplitAt was never called.
func (d *Driver) PartLatencies() []PartLatency {
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	if len(d.rec.parts.names) == 0 {
		return nil
	}
	return d.rec.parts.latencies()
}
