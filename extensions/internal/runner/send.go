package runner

import (
	"context"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/replay"
)

// sendOne stamps and sends one message of cell c on producer pi (whose mu the caller holds)
// and queues its acknowledgement; window, when not nil, is a closed-loop producer's in-flight
// window, whose slot the caller took and which is freed when the acknowledgement resolves.
// It returns the message's send time (run clock, ns), for callers that need the time anyway.
func (r *Runner) sendOne(ctx context.Context, c *cellState, pi int, p *producer, flags uint8, intended int64, window chan struct{}, res *PublishResult, row *replay.Row) int64 {
	seq := c.ledger.Issue(pi)
	var body, buf []byte
	var spare []byte // body, when it may serve again once acknowledged (spare.go)
	if p.copies {
		buf = p.buf
	}
	if row != nil && row.Payload != nil { // a recorded body, sent as it is (its stamp in a header)
		body = row.Payload
	} else if row != nil { // a replayed row's size
		body = c.body.(*payload.Varied).NextSized(buf, row.Size)
	} else if t, ok := c.body.(*payload.Templated); ok {
		body = t.NextFor(buf, seq)
	} else if p.copies {
		body = c.body.NextInto(buf)
	} else {
		body = c.body.NextInto(p.takeSpare())
		spare = body
	}
	if p.copies {
		p.buf = body
	}
	key := r.keys.Next(seq)
	if row != nil && row.Key != nil {
		key = row.Key
	}
	var stamp []byte // the stamp's own buffer when it travels in a header
	switch {
	case r.stampHeader && p.copies:
		stamp = p.stamp[:]
	case r.stampHeader: // kept with the message until acknowledged
		stamp = make([]byte, header.Size)
	}
	into := body // where the stamp is written: the body's first bytes, or its own buffer
	if stamp != nil {
		into = stamp
	}
	now := r.now()
	header.Put(into, header.Header{Flags: flags, Run: r.runID, Cell: uint16(c.idx), Producer: uint16(pi), Runner: r.runnerNo(), Seq: seq, Sent: r.toRef(now), Intended: r.toRef(intended)})
	if r.testSendDelay > 0 {
		spinFor(r.testSendDelay)
	}
	// The send outlives this iteration (its acknowledgement is awaited elsewhere), so it
	// takes the run's context: k6 ends an iteration's context when the iteration returns.
	ack, err := p.pub.Send(r.ackCtx, driver.Message{Key: key, Value: body, Stamp: stamp, ID: driver.MessageID{Cell: c.idx, Producer: pi, Seq: seq, Issued: true}})
	if err != nil {
		c.ledger.Failed(pi, seq)
		res.Errors++
		if res.Err == nil {
			res.Err = err
		}
		if flags&header.FlagWarmup == 0 {
			c.firstSendErr.set(err)
		}
		release(window)
		return now
	}
	res.Sent++
	res.Bytes += len(body)
	if k := c.sizes.of(len(body)); k != nil && flags&header.FlagWarmup == 0 {
		k.sent.Add(1)
	}
	if ack == nil {
		// Fire-and-forget: the client took it without error, which is all the
		// confirmation there will be.
		c.ledger.Confirmed(pi, seq)
		res.Acked++
		release(window)
		return now
	}
	m := inflight{cell: c, producer: pi, seq: seq, sent: now, warmup: flags&header.FlagWarmup != 0, ack: ack, window: window, body: spare}
	select { // room in the queue: no select over the context (a seventh of a send's CPU at 280,000 msg/s)
	case p.acks <- m:
		return now
	default:
	}
	select {
	case p.acks <- m:
	case <-ctx.Done(): // run stopped while maxInflight acknowledgements were outstanding
		c.ledger.Failed(pi, seq)
		res.Errors++
		release(window)
	}
	return now
}
