package loadgen

// Attempt slots: every attempt and every tracer in flight holds one, and
// at most Bounds.MaxInFlight are held at once, so the driver's sockets
// (one a slot) stay within the bound whatever the service does. Tracers
// hold at most Bounds.MaxTracers of them, so probes never crowd out the
// load they measure.

// acquire takes a slot for an attempt (first or retry) if one is free.
func (d *Driver) acquire() bool {
	if !d.take() {
		return false
	}
	d.inFlight.Add(1)
	return true
}

// release frees an attempt's slot.
func (d *Driver) release() {
	d.inFlight.Add(-1)
	d.slots.Add(-1)
}

// acquireTracer takes a slot for a tracer if one is free and fewer than
// MaxTracers tracers are in flight. Only the tracers goroutine calls it,
// so the count of tracers cannot grow between its check and its increment.
func (d *Driver) acquireTracer() bool {
	if d.tracing.Load() >= int64(d.bounds.MaxTracers) || !d.take() {
		return false
	}
	d.tracing.Add(1)
	return true
}

// releaseTracer frees a tracer's slot.
func (d *Driver) releaseTracer() {
	d.tracing.Add(-1)
	d.slots.Add(-1)
}

// take takes a slot if fewer than MaxInFlight are held.
func (d *Driver) take() bool {
	limit := int64(d.bounds.MaxInFlight)
	for {
		n := d.slots.Load()
		if n >= limit {
			return false
		}
		if d.slots.CompareAndSwap(n, n+1) {
			return true
		}
	}
}
