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
