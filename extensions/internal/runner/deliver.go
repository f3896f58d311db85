package runner

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/header"
)

// The receive path: every consumer's message comes through deliverSub, which attributes it
// to its run, cell, producer and subscription and records its latencies.

// deliver is the consumers' callback: decode, attribute, record. No allocation on this path
// except when the pending buffer grows.
func (r *Runner) deliver(value []byte, at time.Time, lane int) { r.deliverSub(value, at, lane, 0) }

// deliverSub is deliver for a consumer of subscription sub (fan-out).
func (r *Runner) deliverSub(value []byte, at time.Time, lane, sub int) {
	at = r.waitGate(at)
	at = r.thr.wait(lane, at, r.now)
	recv := int64(at.Sub(r.epoch))
	h, err := header.Get(value)
	if err != nil || (!h.Compact && h.Run != r.runID) || int(h.Cell) >= len(r.cells) {
		r.foreign.Add(1)
		return
	}
	h.Sent, h.Intended = r.fromRef(h.Sent), r.fromRef(h.Intended)
	size := len(value) // the body's: without a stamp that travelled in a header
	if r.stampHeader {
		size -= header.Size
	}
	c := r.cells[h.Cell]
	c.tl.addRecv(recv)
	c.ledger.ReceiveFrom(int(h.Runner), int(h.Producer), h.Seq, lane, sub)
	if d := r.draining.Load(); d != nil && d != c {
		d.drained(recv, h.Sent, size) // an earlier cell's message, taken by a consume-only cell
	}
	if c.closed.Load() {
		return // after the drain: the ledger counted it as late; nothing else measures it
	}
	if h.Flags&header.FlagWarmup != 0 {
		c.warmupRecvd.Add(1)
		return
	}
	e2e, e2eInt := recv-h.Sent, recv-h.Intended
	c.received.Add(1)
	c.dests.add(lane, r.sc.Workload.Consumers)
	c.bytesReceived.Add(uint64(size))
	c.recvWin.add(recv)
	c.e2e.Record(e2e)
	if k := c.sizes.of(size); k != nil {
		k.received.Add(1)
		k.record(e2e, e2eInt, h.Intended >= 0)
	}
	if st := c.stageAt(h.Intended); st != nil { // only a message with an intended time has a stage
		st.record(e2e, e2eInt, true)
	}
	if h.Intended >= 0 {
		c.e2eIntended.Record(e2eInt)
	} else {
		e2eInt = -1 // compact header: no intended time carried
	}
	if !r.raw {
		return
	}
	c.mu.Lock()
	if len(c.pending) < maxPending {
		c.pending = append(c.pending, Received{time.Duration(e2e), time.Duration(e2eInt), size})
	} else {
		c.k6Skipped++
	}
	c.mu.Unlock()
}

// takeReceived hands over the deliveries measured since the last call, reusing buf.
func (r *Runner) takeReceived(cell int, buf []Received) []Received {
	c := r.cells[cell]
	c.mu.Lock()
	out := c.pending
	c.pending = buf[:0]
	c.mu.Unlock()
	return out
}
