package runner

import (
	"math"
	"sync/atomic"
	"time"
)

// dropWindow is how long the drop estimate looks for an iteration that started on time.
const dropWindow = 250 * time.Millisecond

// dropEstimate recovers how many ticks k6 dropped, so intended send times stay on the
// schedule after drops. k6 numbers only the iterations it starts; a tick it cannot hand to a
// free VU is dropped, never queued. So for an iteration started at t, (ticks due by t) −
// (its number) is a momentary lag (the executor's timer fired late and handed out a burst)
// plus every drop so far. The smallest value over a window is the drops: some iteration in a
// window starts promptly unless the generator is hopelessly behind. The estimate never
// decreases, and without drops it stays 0, leaving the schedule exactly start + n × period.
type dropEstimate struct {
	dropped atomic.Int64 // estimated ticks dropped so far
	winMin  atomic.Int64 // smallest gap seen in the current window
	winEnd  atomic.Int64 // run-clock ns when the current window closes; 0 before the first
}

// newDropEstimate returns an estimate of zero with an empty window.
func newDropEstimate() *dropEstimate {
	d := &dropEstimate{}
	d.winMin.Store(math.MaxInt64)
	return d
}

// observe records one iteration's gap at run-clock time now and returns the estimate.
func (d *dropEstimate) observe(gap, now int64) int64 {
	for {
		m := d.winMin.Load()
		if gap >= m || d.winMin.CompareAndSwap(m, gap) {
			break
		}
	}
	end := d.winEnd.Load()
	if end == 0 {
		d.winEnd.CompareAndSwap(0, now+int64(dropWindow))
	} else if now >= end && d.winEnd.CompareAndSwap(end, now+int64(dropWindow)) {
		if m := d.winMin.Swap(math.MaxInt64); m != math.MaxInt64 && m > d.dropped.Load() {
			d.dropped.Store(m)
		}
	}
	return d.dropped.Load()
}

// profileSettle is how long after a profile's start its clock offset is learned from every
// iteration (the pacer waking every 50 µs meanwhile).
const profileSettle = time.Second

// clockOffset is how much later than the scenario's start k6's ramping-arrival-rate executor
// starts its profile's clock: it reads the clock after activating its pre-allocated VUs
// (about 15 ms for 1,000 here), where constant-arrival-rate times its ticks from the
// scenario's start itself. Every iteration starts at or after its tick, so the smallest
// (start − tick offset) seen is the offset plus the shortest hand-off from k6's timer to the
// iteration. It is learned in the profile's first second (the pacer then wakes every 50 µs,
// so the hand-off seen is short), and lowered later when an iteration starts sooner than the
// offset says by less than half its tick's period: a busy runtime fires k6's timer without
// the pacer. A larger step is an iteration numbered ahead of its tick (two VUs took their
// numbers in the other order), not news about the clock.
type clockOffset struct {
	min  atomic.Int64 // ns; math.MaxInt64 before the first iteration
	base atomic.Int64 // run-clock ns of the scenario's start, +1 (0: not started)
}

func newClockOffset() *clockOffset {
	o := &clockOffset{}
	o.min.Store(math.MaxInt64)
	return o
}

// observe records an iteration that started at offset since the scenario's start, whose
// tick is at offset tick of the profile's clock, period before the next tick, and returns
// the offset learned so far.
func (o *clockOffset) observe(since, tick, period time.Duration) time.Duration {
	if tick < 0 {
		return o.get()
	}
	v := int64(max(since-tick, 0))
	for m := o.min.Load(); v < m; m = o.min.Load() {
		if since >= profileSettle && m-v >= int64(period/2) {
			break
		}
		if o.min.CompareAndSwap(m, v) {
			break
		}
	}
	return o.get()
}

// begin records the scenario's start (run-clock ns), once.
func (o *clockOffset) begin(ns int64) { o.base.CompareAndSwap(0, ns+1) }

// start is the profile's clock start as known now (run-clock ns): the scenario's start plus
// the offset learned so far; false before the first iteration.
func (o *clockOffset) start() (int64, bool) {
	b := o.base.Load()
	return b - 1 + int64(o.get()), b != 0
}

// get is the offset learned so far (0 before the first iteration).
func (o *clockOffset) get() time.Duration {
	if m := o.min.Load(); m != math.MaxInt64 {
		return time.Duration(m)
	}
	return 0
}
