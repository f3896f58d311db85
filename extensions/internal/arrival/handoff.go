// Package arrival hands an arrival-rate schedule's ticks to VUs (Handoff) and names
// mqbench's arrival-rate executor (Type), which arrival/executor runs inside k6. It imports
// nothing of k6, so the plan can name the executor without linking k6's executors.
package arrival

import (
	"context"
	"math/big"
	"sync"
	"time"
)

// Type is the executor's name in a k6 scenario's `executor` option.
const Type = "mqbench-arrival-rate"

// Handoff gives each tick of a schedule to one idle VU, or counts it dropped when none is
// idle at its due time (k6's arrival-rate rule: no queue). What differs from k6's executor is
// the path from a tick's timer to its iteration, which is schedule lag:
//   - the VU that runs a tick waits for its due time itself (it holds the tick), so no
//     goroutine switch lies between the timer and the iteration;
//   - a VU back from its iteration before the next tick is due holds that one too, so at
//     rates a VU keeps up with one VU runs every tick, warm in the caches, and nothing else
//     wakes; k6 hands every tick over a channel to the VU parked longest (cold, with a pool
//     of a second of iterations);
//   - when the next tick comes due while its VU still runs, a rescue timer hands it to the VU
//     parked most recently (a stack), or, with none parked, the tick is dropped.
type Handoff struct {
	start   time.Time
	end     time.Duration // the regular duration: no tick is due at or after it
	ticks   *Ticks
	dropped func(due []time.Duration) // ticks no VU was free for; called outside the lock
	short   func()                    // a tick found no parked VU: the pool may grow
	rescue  *time.Timer               // armed for the tick after the held one: hands it out if due and not held

	mu      sync.Mutex
	held    bool                 // a VU holds ticks.due()
	orphan  bool                 // ticks.due() came due with no VU free: dropped until one is
	stopped bool                 // the regular duration is over: no tick is handed out
	idle    []chan time.Duration // parked VUs, most recent last; a due time, or -1 to leave
}

// NewHandoff hands out t's ticks from start until end (the regular duration); dropped gets
// the ticks no VU was free for, short is called when a tick found no VU parked.
func NewHandoff(start time.Time, end time.Duration, t *Ticks, dropped func([]time.Duration), short func()) *Handoff {
	h := &Handoff{start: start, end: end, ticks: t, dropped: dropped, short: short}
	h.rescue = time.AfterFunc(time.Hour, h.rescued)
	h.rescue.Stop()
	return h
}

// Park adds a VU to the stack before the first tick (Begin), so that the ticks due while the
// pool was being built run as soon as it is, none dropped (as k6's executor does).
func (h *Handoff) Park() chan time.Duration {
	wake := make(chan time.Duration, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.idle = append(h.idle, wake)
	return wake
}

// Begin hands the first tick to the VU parked last.
func (h *Handoff) Begin() { h.rescued() }

// Serve runs one VU until the schedule ends (ctx, the regular duration): wait for the held
// tick's due time, run one iteration, then hold the next tick or park. No timer is touched
// between the wake-up and the iteration: the rescue was armed when the tick was taken. wake
// is the VU's channel from Park, or nil for a VU that joins a running schedule.
func (h *Handoff) Serve(ctx context.Context, wake chan time.Duration, run func(due time.Duration)) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var due time.Duration
	if wake == nil {
		wake = make(chan time.Duration, 1)
		due = h.hold(wake)
	} else {
		due = <-wake
	}
	for due >= 0 && due < h.end && waitUntil(ctx, timer, h.start.Add(due)) {
		h.fired()
		run(due)
		due = h.hold(wake)
	}
	h.Stop()
}

// fired moves the schedule on from the tick its VU is about to run; the next is not held
// until a VU takes it (hold) or the rescue hands it out at its due time, at once if it is
// due already (this VU woke late, after its rescue found the tick still held).
func (h *Handoff) fired() {
	h.mu.Lock()
	h.ticks.advance()
	h.held = false
	if !h.stopped && time.Since(h.start) >= h.ticks.due() {
		h.rescue.Reset(0)
	}
	h.mu.Unlock()
}

// take holds the current tick for the caller and arms the rescue of the one after it.
func (h *Handoff) take() time.Duration {
	h.held = true
	h.rescue.Reset(time.Until(h.start.Add(h.ticks.following())))
	return h.ticks.due()
}

// hold returns the due time of the tick the calling VU holds: the next one, if no VU holds
// it, or the one a VU hands it later while it is parked; -1 when the schedule ended.
func (h *Handoff) hold(wake chan time.Duration) time.Duration {
	h.mu.Lock()
	if h.stopped {
		h.mu.Unlock()
		return -1
	}
	if h.held {
		h.idle = append(h.idle, wake)
		h.mu.Unlock()
		return <-wake
	}
	var late []time.Duration
	if h.orphan { // every tick due since the rescue found no VU free was dropped
		late = h.ticks.skipBefore(min(time.Since(h.start), h.end))
		h.orphan = false
	}
	due := h.take()
	h.mu.Unlock()
	if len(late) > 0 {
		h.dropped(late)
	}
	return due
}

// rescued hands the current tick, not held (its due time passed while the VU before it
// ran, or the schedule begins), to the VU parked most recently; with none parked the tick is
// an orphan and the pool may grow. A rescue that finds the tick held does nothing.
func (h *Handoff) rescued() {
	h.mu.Lock()
	if h.held || h.stopped {
		h.mu.Unlock()
		return
	}
	n := len(h.idle)
	if n > 0 {
		w := h.idle[n-1]
		h.idle = h.idle[:n-1]
		w <- h.take()
		h.mu.Unlock()
		return
	}
	h.orphan = true
	h.mu.Unlock()
	h.short()
}

// Stop ends the handing out: parked VUs leave, a running one leaves when its iteration ends.
func (h *Handoff) Stop() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true
	h.rescue.Stop()
	for _, w := range h.idle {
		w <- -1
	}
	h.idle = nil
}

// waitUntil waits for at on timer; false when ctx ends first. A tick already due runs
// whatever ctx says (also when ctx's deadline and the timer fire together): its VU was free
// and holds it, so it is neither lost nor dropped.
func waitUntil(ctx context.Context, timer *time.Timer, at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return true
	}
	timer.Reset(d)
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		timer.Stop()
		return !time.Now().Before(at)
	}
}

// Period is k6's iteration period for a constant-arrival-rate executor (lib/executor
// getTickerPeriod on the unscaled rate, which its timer multiplies by the iteration number):
// 1 / (rate / timeUnit) as a float, truncated to whole ns. Rounding would drift from k6's
// ticks: 180 µs over 30 s at 6,000 msg/s.
func Period(rate int64, timeUnit time.Duration) time.Duration {
	f, _ := new(big.Rat).Inv(big.NewRat(rate, int64(timeUnit))).Float64()
	return time.Duration(f)
}

// Ticks are an arrival-rate schedule's due times, as k6's constant-arrival-rate executor
// computes them: the unscaled period times the global iteration number, which an execution
// segment stripes (start, then offsets in turn).
type Ticks struct {
	period  time.Duration
	gi      int64
	li      int
	offsets []int64
}

// NewTicks starts a schedule at global iteration start, its steps the segment's offsets.
func NewTicks(period time.Duration, start int64, offsets []int64) *Ticks {
	return &Ticks{period: period, gi: start, offsets: offsets}
}

func (t *Ticks) due() time.Duration { return t.period * time.Duration(t.gi) }

// following is the due time of the tick after the current one.
func (t *Ticks) following() time.Duration { return t.period * time.Duration(t.gi+t.step()) }

func (t *Ticks) advance() {
	t.gi += t.step()
	t.li++
}

// step is how many global iterations lie between the current tick and the next.
func (t *Ticks) step() int64 { return t.offsets[t.li%len(t.offsets)] }

// skipBefore advances past every tick due before now and returns their due times.
func (t *Ticks) skipBefore(now time.Duration) []time.Duration {
	var skipped []time.Duration
	for t.due() < now {
		skipped = append(skipped, t.due())
		t.advance()
	}
	return skipped
}
