package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
)

// maxInflight bounds the messages one producer connection may have awaiting the broker's
// acknowledgement. Beyond it a send waits, its VU stays busy, and k6 drops ticks: a broker
// that stops acknowledging shows up as dropped iterations, not as growing memory.
const maxInflight = 1 << 16

// ackTimeout bounds the wait for one acknowledgement, so a broker that stops answering shows
// up as publish errors.
const ackTimeout = 30 * time.Second

// closeGrace is how long Close lets outstanding acknowledgements arrive before failing them.
const closeGrace = 5 * time.Second

// inflight is one sent message awaiting its acknowledgement.
type inflight struct {
	cell     *cellState
	producer int
	seq      uint64
	sent     int64 // run clock, ns
	warmup   bool
	ack      driver.Ack
	// window is a closed-loop producer's in-flight window (nil for a fixed rate): one slot
	// is freed when this acknowledgement resolves.
	window chan struct{}
	// body goes back to the producer's spares once acknowledged (nil: not the producer's to
	// reuse).
	body []byte
}

// release frees one slot of a closed-loop window (nil: none).
func release(window chan struct{}) {
	if window != nil {
		<-window
	}
}

// producer is one producer connection. Iterations only send (holding mu, so a producer's
// sequence numbers reach the wire in order); acknowledgements are awaited here, in send
// order, by one goroutine per connection. A k6 iteration therefore never waits for the
// broker: the generator keeps its schedule however slow the acknowledgements are.
type producer struct {
	mu  sync.Mutex
	pub driver.Publisher
	// buf is reused for every message when pub copies values (driver.ValueCopier); nil
	// otherwise, and every message gets its own body.
	buf    []byte
	copies bool
	stamp  [header.Size]byte // the stamp of payload.stamp: header, when pub copies
	acks   chan inflight
	done   chan struct{}
	// spare are bodies of acknowledged messages, for the next ones (spare.go); awaitAcks adds,
	// sends take, so they have their own lock.
	spareMu sync.Mutex
	spare   [][]byte
}

func (r *Runner) newProducer(pub driver.Publisher) *producer {
	p := &producer{pub: pub, acks: make(chan inflight, maxInflight), done: make(chan struct{})}
	if vc, ok := pub.(driver.ValueCopier); ok {
		p.copies = vc.CopiesValue()
	}
	go r.awaitAcks(p)
	return p
}

// awaitAcks records each acknowledgement: publish latency (send → ack) into the cell's
// histogram and k6 queue, or a failed send in the ledger.
func (r *Runner) awaitAcks(p *producer) {
	defer close(p.done)
	for m := range p.acks {
		done, err := poll(m.ack)
		if !done {
			ctx, cancel := context.WithTimeout(r.ackCtx, ackTimeout)
			err = m.ack.Wait(ctx)
			if errors.Is(err, context.DeadlineExceeded) && r.ackCtx.Err() == nil && ctx.Err() != nil {
				err = fmt.Errorf("no acknowledgement from the broker within %s", ackTimeout)
			}
			cancel()
		}
		release(m.window)
		c := m.cell
		if err != nil {
			// Given up at Close (closeGrace over): the broker never answered, so the
			// send's outcome is unknown and it stays unconfirmed; any other error
			// (the broker's, or no answer within ackTimeout) is a failed send.
			if r.ackCtx.Err() == nil {
				c.ledger.Failed(m.producer, m.seq)
			}
			if !m.warmup {
				c.errors.Add(1)
				c.firstSendErr.set(err)
				if !r.raw {
					continue
				}
				c.mu.Lock()
				c.pendingAckErrors++
				c.mu.Unlock()
			}
			continue
		}
		c.ledger.Confirmed(m.producer, m.seq) // from now on, not arriving is a loss
		p.giveSpare(m.body)
		if m.warmup {
			continue
		}
		d := r.now() - m.sent
		c.acked.Add(1)
		if !c.closed.Load() { // distributions end with the cell's drain (as its interval log does)
			c.publish.Record(d)
			if c.drain != nil {
				c.drain.recordPublish(d)
			}
		}
		if !r.raw {
			continue
		}
		c.mu.Lock()
		c.pendingAcked++
		if len(c.pendingPub) < maxPending {
			c.pendingPub = append(c.pendingPub, time.Duration(d))
		} else {
			c.k6Skipped++
		}
		c.mu.Unlock()
	}
}

// poll returns an Ack's outcome if it is resolved already (driver.Poller), so that only an
// Ack still outstanding costs a timeout context.
func poll(a driver.Ack) (bool, error) {
	if p, ok := a.(driver.Poller); ok {
		return p.Poll()
	}
	return false, nil
}

// Acks is what the acknowledgement goroutines measured since the last takeAcks.
type Acks struct {
	PublishLat []time.Duration
	Acked      uint64
	Errors     uint64
}

// takeAcks hands over the acknowledgements measured since the last call, reusing buf.
func (r *Runner) takeAcks(cell int, buf []time.Duration) Acks {
	c := r.cells[cell]
	c.mu.Lock()
	a := Acks{PublishLat: c.pendingPub, Acked: c.pendingAcked, Errors: c.pendingAckErrors}
	c.pendingPub, c.pendingAcked, c.pendingAckErrors = buf[:0], 0, 0
	c.mu.Unlock()
	return a
}

// stopAcks lets outstanding acknowledgements arrive for closeGrace, then fails the rest.
func (r *Runner) stopAcks() {
	for _, p := range r.pubs {
		close(p.acks)
	}
	t := time.AfterFunc(closeGrace, r.cancelAcks)
	defer t.Stop()
	for _, p := range r.pubs {
		<-p.done
	}
}
