package runner

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/ledger"
)

// Producer-only and consume-only cells. A cell with `consumers: 0` in a run that has consumers
// holds them back for its whole length: what it sends stays in the destination. A later cell
// with `producers: 0` lets them go and drains it. The producing cell's ledger stays open
// until then (its messages are owed, not yet lost); the consume-only cell counts what it took
// as its own receipts (count, rate, the latency since each message was sent) and closes the
// ledgers it drained at its end. Without a consume-only cell after it, a producer-only cell's
// messages are unconsumed: neither received nor lost.

// holds reports whether c holds the run's consumers back (a producer-only cell in a run
// that has consumers).
func (r *Runner) holds(c *cellState) bool {
	return c.cell.Consumers == 0 && c.cell.Producers > 0 && r.sc.Workload.Consumers > 0
}

// drainedLater reports whether a consume-only cell after c takes its messages.
func (r *Runner) drainedLater(c *cellState) bool {
	for _, d := range r.cells[c.idx+1:] {
		if d.cell.Producers == 0 {
			return true
		}
	}
	return false
}

// startHandoff is called when a cell starts.
func (r *Runner) startHandoff(c *cellState) {
	switch {
	case r.holds(c):
		r.holdConsumers()
	case c.cell.Producers == 0:
		for _, h := range r.handedTo(c) {
			h.ledger.SetUnconsumed(false) // consumers are back: what does not arrive is lost
		}
		now := time.Now()
		c.tl.begin(int64(now.Sub(r.epoch)))
		r.draining.Store(c)
		r.releaseConsumers(now)
	}
}

// holdForNext holds the consumers back as cell c ends when the next cell is producer-only,
// so none of its first messages slips through before that cell's consumer VU starts.
func (r *Runner) holdForNext(c *cellState) {
	if c.idx+1 < len(r.cells) && r.holds(r.cells[c.idx+1]) {
		r.holdConsumers()
	}
}

// handedTo lists the producer-only cells whose messages consume-only cell d drains: those
// since the previous consume-only cell.
func (r *Runner) handedTo(d *cellState) []*cellState {
	var out []*cellState
	for i := d.idx - 1; i >= 0; i-- {
		c := r.cells[i]
		if c.cell.Producers == 0 {
			break
		}
		if r.holds(c) {
			out = append(out, c)
		}
	}
	return out
}

// endHandoff is called as a cell ends; it reports whether the cell's ledger stays open for a
// later consume-only cell (and its consumers stay held back meanwhile).
func (r *Runner) endHandoff(c *cellState, interrupted bool) bool {
	if c.cell.Producers == 0 {
		r.draining.CompareAndSwap(c, nil)
		var ls []*ledger.Ledger
		hs := r.handedTo(c)
		for _, h := range hs {
			h.ledger.Freeze()
			ls = append(ls, h.ledger)
		}
		if !interrupted {
			r.reconcile(ls...)
		}
		for _, h := range hs {
			h.settled.Store(true)
		}
		return false
	}
	return r.holds(c) && !interrupted && r.drainedLater(c)
}

// heldBack is what a consume-only cell has still to take: the acknowledged messages of the
// cells it drains not received yet (by every subscription).
func (r *Runner) heldBack() int64 {
	d := r.draining.Load()
	if d == nil {
		return 0
	}
	var n int64
	for _, h := range r.handedTo(d) {
		t := h.ledger.Tally()
		n += int64(t.Lost + t.Unconsumed)
	}
	return n
}

// drained credits consume-only cell d with one message of an earlier cell.
func (d *cellState) drained(recv, sent int64, size int) {
	if d.closed.Load() {
		return
	}
	d.tl.addRecv(recv)
	d.received.Add(1)
	d.bytesReceived.Add(uint64(size))
	d.recvWin.add(recv)
	d.e2e.Record(recv - sent)
}
