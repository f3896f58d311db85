package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/replay"
)

// A `rate: max` cell: every producer connection runs one closed loop (one long k6 iteration)
// that sends as fast as the broker acknowledges, with at most Inflight messages awaiting an
// acknowledgement. Nothing is scheduled, so nothing is late: no schedule lag, no intended
// time (the header carries -1, and e2e_intended stays empty), no dropped iterations.

// closedLoop is a max cell's shared state.
type closedLoop struct {
	producers atomic.Int32 // producer numbers handed to the cell's VUs
	claimed   atomic.Int64 // measured messages claimed (the cell's `messages` bound)
	finished  atomic.Int32
	doneAt    atomic.Pointer[time.Time] // when the last producer's loop ended

	once    sync.Once
	windows []chan struct{} // per producer: a slot per unacknowledged message
}

func (l *closedLoop) window(c *cellState, pi int) chan struct{} {
	l.once.Do(func() {
		l.windows = make([]chan struct{}, c.cell.Producers)
		for i := range l.windows {
			l.windows[i] = make(chan struct{}, c.cell.Inflight)
		}
	})
	return l.windows[pi]
}

// PublishMax is one producer's closed loop in a `rate: max` cell: it returns at the cell's
// end (its message count sent, or its duration over), or when ctx ends.
func (r *Runner) PublishMax(ctx context.Context, cell int, start time.Time) PublishResult {
	c := r.cells[cell]
	if c.cell.Replay != nil {
		return r.replayCell(ctx, c, start)
	}
	if !c.cell.Max {
		return PublishResult{Err: fmt.Errorf("cell %s has a fixed rate; its producers run on the arrival-rate executor", c.cell.ID)}
	}
	pi := int(c.loop.producers.Add(1) - 1)
	if pi >= c.cell.Producers {
		return PublishResult{Err: fmt.Errorf("cell %s: more producer VUs than its %d producers", c.cell.ID, c.cell.Producers)}
	}
	defer func() {
		if int(c.loop.finished.Add(1)) == c.cell.Producers {
			now := time.Now()
			c.loop.doneAt.Store(&now)
		}
	}()
	r.begin(c)
	c.tl.begin(int64(start.Sub(r.epoch)))
	window := c.loop.window(c, pi)
	warmEnd := start.Add(c.cell.Warmup)
	end := warmEnd.Add(c.cell.Duration)
	// On the run clock. The last send's stamp stands for now, so a message costs one clock
	// read (its stamp's); the clock is read afresh only during the warm-up (so that it ends
	// on time) and after waiting for a slot.
	warmEndNs, endNs := int64(warmEnd.Sub(r.epoch)), int64(end.Sub(r.epoch))
	now := r.now()
	var total PublishResult
	for ctx.Err() == nil {
		if now >= endNs {
			break
		}
		warm := now < warmEndNs
		if warm {
			now = r.now()
			warm = now < warmEndNs
		}
		if !warm && c.cell.Messages > 0 && c.loop.claimed.Add(1) > int64(c.cell.Messages) {
			break
		}
		ok, waited := r.takeSlot(ctx, window, end)
		if !ok {
			break
		}
		if waited { // the last stamp is old now
			if now = r.now(); now >= endNs {
				release(window) // the slot this message will not use
				break
			}
		}
		flags := uint8(0)
		if warm {
			flags = header.FlagWarmup
		} else {
			c.markCPUStart()
		}
		var res PublishResult
		res, now = r.sendLooped(ctx, c, pi, flags, -1, window, nil, PublishResult{Warmup: warm})
		total.add(res)
	}
	return total
}

// sendLooped sends one message of a loop (a closed loop's, a replay's) on producer pi and
// counts it in the cell; res holds what is known before the send (warm-up, lag). It returns
// the send's result and its time (run clock, ns).
func (r *Runner) sendLooped(ctx context.Context, c *cellState, pi int, flags uint8, intended int64, window chan struct{}, row *replay.Row, res PublishResult) (PublishResult, int64) {
	p := r.pubs[pi]
	p.mu.Lock()
	at := r.sendOne(ctx, c, pi, p, flags, intended, window, &res, row)
	p.mu.Unlock()
	c.countSent(&res, res.Warmup, at)
	return res, at
}

// add folds one send's result into a loop's total (the first error kept).
func (t *PublishResult) add(res PublishResult) {
	t.Sent, t.Acked, t.Errors, t.Bytes = t.Sent+res.Sent, t.Acked+res.Acked, t.Errors+res.Errors, t.Bytes+res.Bytes
	if t.Err == nil {
		t.Err = res.Err
	}
}

// takeSlot waits for room in a closed-loop window; false when ctx or the cell ended first.
// waited says it had to wait.
func (r *Runner) takeSlot(ctx context.Context, window chan struct{}, end time.Time) (ok, waited bool) {
	select {
	case window <- struct{}{}:
		return true, false
	default:
	}
	t := time.NewTimer(time.Until(end))
	defer t.Stop()
	select {
	case window <- struct{}{}:
		return true, true
	case <-ctx.Done():
	case <-t.C:
	}
	return false, true
}

// loopDone reports whether a max cell's producers have all finished, and when.
func (c *cellState) loopDone() (time.Time, bool) {
	if t := c.loop.doneAt.Load(); t != nil {
		return *t, true
	}
	return time.Time{}, false
}

// cellDone says whether a cell's consumer phase may end now, before cellEnd: a consume-only
// cell ends once it received everything handed to it (handoff.go); a closed-loop
// cell ends once its producers finished and either everything acknowledged has arrived (and
// no acknowledgement is outstanding) or its drain is over. A fixed-rate cell always runs to
// cellEnd (its slot in k6's schedule is fixed anyway).
func (r *Runner) cellDone(cell int, now time.Time) bool {
	c := r.cells[cell]
	if c.cell.Producers == 0 {
		return r.heldBack() == 0 // a consume-only cell took everything it was handed
	}
	if !c.cell.Max {
		return false
	}
	done, ok := c.loopDone()
	if !ok {
		return false
	}
	if !now.Before(done.Add(c.cell.Drain)) {
		return true
	}
	settled := c.acked.Load()+c.errors.Load() >= c.sent.Load() && r.outstanding(c) == 0
	return settled && r.sampleBacklog(cell) <= 0
}

// outstanding counts the cell's messages still awaiting an acknowledgement.
func (r *Runner) outstanding(c *cellState) int {
	n := 0
	for _, w := range c.loop.windows {
		n += len(w)
	}
	return n
}
