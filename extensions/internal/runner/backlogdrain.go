package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A backlog build-and-drain cell (scenario `backlog: N`): from the start of the measured
// period the consumers take nothing — their delivery callbacks wait at a gate, so each
// consumer stops reading and the broker holds the messages (flow control: prefetch, credit,
// fetch buffers) — until N acknowledged messages wait; then the gate opens and they drain the
// backlog while the producers go on at the cell's rate.

// Drain phases.
const (
	phaseBefore int32 = iota // warm-up: consumers read
	phaseBuilding
	phaseDraining
	phaseDrained
)

var phaseNames = [...]string{phaseBuilding: "building", phaseDraining: "draining", phaseDrained: "drained"}

type drainState struct {
	target int64
	phase  atomic.Int32
	pub    [phaseDrained + 1]*hist.Hist // publish latency by phase (building, draining, drained)

	mu                                      sync.Mutex
	cellStart, pausedAt, resumedAt, drained time.Time
	peak                                    int64
	reached                                 bool
	receivedAtResume, receivedAtDrained     uint64
}

func newDrainState(target int) *drainState {
	d := &drainState{target: int64(target)}
	for p := phaseBuilding; p <= phaseDrained; p++ {
		d.pub[p] = hist.New()
	}
	return d
}

// recordPublish files a publish latency under the phase it ended in.
func (d *drainState) recordPublish(ns int64) {
	if p := d.phase.Load(); p >= phaseBuilding {
		d.pub[p].Record(ns)
	}
}

// gate holds consumers' deliveries back while closed.
type gate struct {
	open     chan struct{}
	openedAt time.Time // written before open is closed
}

// holdConsumers closes the gate: every delivery waits in deliver until releaseConsumers.
func (r *Runner) holdConsumers() {
	r.gate.CompareAndSwap(nil, &gate{open: make(chan struct{})})
}

// releaseConsumers opens the gate; deliveries that waited count as received now.
func (r *Runner) releaseConsumers(now time.Time) {
	if g := r.gate.Swap(nil); g != nil {
		g.openedAt = now
		r.openedAt.Store(int64(now.Sub(r.epoch)))
		close(g.open)
	}
}

// waitGate blocks a delivery while consumers are held back, and returns its receipt time:
// no earlier than the moment they were last let go. A client hands over a fetched batch
// one message at a time with the batch's receipt time, so the messages after the one that
// waited at the gate come in after it opened, still stamped with the time before.
func (r *Runner) waitGate(at time.Time) time.Time {
	if g := r.gate.Load(); g != nil {
		<-g.open
	}
	if o := r.openedAt.Load(); o != 0 {
		if opened := r.epoch.Add(time.Duration(o)); at.Before(opened) {
			return opened
		}
	}
	return at
}

// stepDrain advances a backlog cell's phases; RunCell calls it with every
// backlog sample (every pumpEvery). A cell without backlog is untouched.
func (r *Runner) stepDrain(cell int, start time.Time, backlog int64) {
	c := r.cells[cell]
	d := c.drain
	if d == nil {
		return
	}
	now := time.Now()
	measured := start.Add(c.cell.Warmup)
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.phase.Load() {
	case phaseBefore:
		if !now.Before(measured) {
			r.holdConsumers()
			d.cellStart, d.pausedAt = start, now
			d.phase.Store(phaseBuilding)
		}
	case phaseBuilding:
		d.peak = max(d.peak, backlog)
		// The producers stop at the end of the measured period: drain what was built.
		if backlog >= d.target || !now.Before(measured.Add(c.cell.Duration)) {
			d.reached = backlog >= d.target
			d.resumedAt, d.receivedAtResume = now, c.received.Load()
			d.phase.Store(phaseDraining)
			r.releaseConsumers(now)
		}
	case phaseDraining:
		// Drained: back to what a steady flow keeps in flight (1 % of the target, at least 1).
		if backlog <= max(d.target/100, 1) {
			d.drained, d.receivedAtDrained = now, c.received.Load()
			d.phase.Store(phaseDrained)
		}
	}
}

// report is the cell's backlog figures for summary.json (nil for other cells).
func (d *drainState) report() *results.BacklogDrain {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	out := &results.BacklogDrain{Target: d.target, Reached: d.reached, Peak: d.peak,
		PublishLatency: map[string]hist.Stats{}}
	for p := phaseBuilding; p <= phaseDrained; p++ {
		out.PublishLatency[phaseNames[p]] = d.pub[p].Snapshot()
	}
	if d.pausedAt.IsZero() {
		return out
	}
	out.PausedAtS = d.pausedAt.Sub(d.cellStart).Seconds()
	if d.resumedAt.IsZero() {
		return out
	}
	out.BuildS = d.resumedAt.Sub(d.pausedAt).Seconds()
	if d.drained.IsZero() {
		return out
	}
	out.Drained = true
	out.DrainS = d.drained.Sub(d.resumedAt).Seconds()
	if out.DrainS > 0 {
		out.DrainRate = float64(d.receivedAtDrained-d.receivedAtResume) / out.DrainS
		out.NetDrainRate = float64(d.peak) / out.DrainS
	}
	return out
}
