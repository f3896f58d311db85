package runner

import (
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// maxTimelineSlots bounds a cell's timeline: a cell longer than this many seconds gets wider
// slots (2 s, 3 s, …) instead of more of them.
const maxTimelineSlots = 3600

// timelineSlack covers deliveries that arrive after the drain (they land in the last slot).
const timelineSlack = 5 * time.Second

// timeline counts one cell's messages sent and received per slot of time since the cell's
// start (warm-up and drain included), for throughput-over-time charts. Fixed size and
// lock-free: one atomic add per message on the hot paths.
type timeline struct {
	start      atomic.Int64 // run-clock ns of the cell's start, +1 (0 = not started yet)
	step       int64        // ns per slot
	planned    int          // slots the cell's warm-up, duration and drain cover
	sent, recv []atomic.Uint64
	lat        []latencySlot // each slot's end-to-end p50/p99/max (ns), from the per-second intervals
}

// latencySlot is one slot's end-to-end figures: the p50 and p99 of its latest second, the
// max of every second in it.
type latencySlot struct{ p50, p99, max atomic.Int64 }

// TimelinePoint is one slot of results.Cell.Timeline.
type TimelinePoint = results.TimelinePoint

func newTimeline(span time.Duration) *timeline {
	step := time.Second
	if n := int64((span + timelineSlack) / time.Second); n > maxTimelineSlots {
		step = time.Duration((n + maxTimelineSlots - 1) / maxTimelineSlots * int64(time.Second))
	}
	slots := int((span+timelineSlack)/step) + 1
	planned := int((span + step - 1) / step)
	return &timeline{step: int64(step), planned: planned, sent: make([]atomic.Uint64, slots), recv: make([]atomic.Uint64, slots),
		lat: make([]latencySlot, slots)}
}

// begin records the cell's start (the k6 scenario's start time on the run clock) once.
func (t *timeline) begin(startNs int64) {
	if t.start.Load() == 0 {
		t.start.CompareAndSwap(0, startNs+1)
	}
}

// started reports the cell's start on the run clock.
func (t *timeline) started() (int64, bool) {
	s := t.start.Load()
	return s - 1, s != 0
}

func (t *timeline) slot(ns int64) int {
	s := t.start.Load()
	if s == 0 {
		return 0
	}
	i := (ns - (s - 1)) / t.step
	return int(min(max(i, 0), int64(len(t.sent)-1)))
}

func (t *timeline) addSent(ns int64, n uint64) { t.sent[t.slot(ns)].Add(n) }
func (t *timeline) addRecv(ns int64)           { t.recv[t.slot(ns)].Add(1) }

// addLatency records one second's e2e p50, p99 and max (ns) in the slot of ns; the second
// ended at ns, so it belongs to the slot that holds its middle.
func (t *timeline) addLatency(ns int64, p50, p99, mx float64) {
	l := &t.lat[t.slot(ns-int64(time.Second)/2)]
	l.p50.Store(int64(p50))
	l.p99.Store(int64(p99))
	if int64(mx) > l.max.Load() {
		l.max.Store(int64(mx))
	}
}

// points returns the slots the cell was planned to cover, and any later one with traffic.
func (t *timeline) points() (step float64, out []TimelinePoint) {
	if t.start.Load() == 0 {
		return float64(t.step) / 1e9, []TimelinePoint{}
	}
	last := t.planned - 1
	for i := range t.sent {
		if t.sent[i].Load() > 0 || t.recv[i].Load() > 0 {
			last = i
		}
	}
	out = make([]TimelinePoint, 0, last+1)
	for i := 0; i <= last; i++ {
		p := TimelinePoint{T: float64(int64(i)*t.step) / 1e9, Sent: t.sent[i].Load(), Received: t.recv[i].Load()}
		if l := &t.lat[i]; l.max.Load() > 0 {
			p.E2EP50US, p.E2EP99US, p.E2EMaxUS = us(l.p50.Load()), us(l.p99.Load()), us(l.max.Load())
		}
		out = append(out, p)
	}
	return float64(t.step) / 1e9, out
}

// us is ns as µs with ns resolution (summary.json's unit).
func us(ns int64) float64 { return float64(ns) / 1e3 }
