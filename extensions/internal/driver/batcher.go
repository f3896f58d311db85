package driver

import (
	"context"
	"sync"
	"time"
)

// Batcher turns one publisher's Sends into batches for protocols that carry several messages
// in one request (NSQ's MPUB, a multi-row INSERT, RocketMQ's batch send): Add queues a
// message and returns its Ack at once; the batcher's goroutine takes what is waiting (up to
// Max messages and MaxBytes of values, after Linger when that is set) and hands it to the
// driver's send function, which must resolve every message it gets, then or later. Batches
// leave in Add order, one at a time: the next is gathered while send runs, so a send that
// waits for the broker's answer bounds the producer to one batch in flight, and a send that
// does not (an asynchronous client) pipelines them.
//
// What batching does to latency: a message's publish latency starts when Send was called,
// so it includes its wait for the batch (up to Linger, or the send of the batch before it)
// as well as the larger request's round trip; the end-to-end latency too.
type Batcher struct {
	limits    BatchLimits
	send      func([]*Queued)
	closedErr error

	mu     sync.RWMutex // guards closed against Add; Close takes it to close in
	closed bool
	in     chan *Queued
	done   chan struct{}
	once   sync.Once
}

// Queued is one message waiting in (or handed over by) a Batcher; the driver resolves it.
type Queued struct {
	Pending
	Key   []byte
	Value []byte // kept until the message is resolved
}

// BatchLimits bound one batch.
type BatchLimits struct {
	// Max is the most messages one batch carries (1: every message alone).
	Max int
	// MaxBytes caps the sum of one batch's values (0: no cap); a message over it alone is
	// still sent, as a batch of one, for the broker to judge.
	MaxBytes int
	// Linger is how long the goroutine waits for more messages once it holds one and the
	// batch is not full; 0 sends what is waiting at once.
	Linger time.Duration
	// Queue is how many messages may wait; beyond it Add waits (the generator's iteration
	// stays busy and k6 counts dropped iterations, so a broker that falls behind shows).
	Queue int
}

// NewBatcher starts a batcher whose goroutine calls send with each batch; closedErr fails
// the messages still waiting when Close is called.
func NewBatcher(l BatchLimits, closedErr error, send func([]*Queued)) *Batcher {
	l.Max = max(l.Max, 1)
	l.Queue = max(l.Queue, l.Max)
	b := &Batcher{limits: l, send: send, closedErr: closedErr, in: make(chan *Queued, l.Queue), done: make(chan struct{})}
	go b.run()
	return b
}

// Add queues m and returns its Ack, resolved by the driver's send function.
func (b *Batcher) Add(ctx context.Context, m Message) (Ack, error) {
	q := &Queued{Pending: NewPending(), Key: m.Key, Value: m.Value}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return nil, b.closedErr
	}
	select { // room in the queue: no select over the context (a third of Add's CPU)
	case b.in <- q:
		return q, nil
	default:
	}
	select {
	case b.in <- q:
		return q, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close stops taking messages and returns once the batch in progress was handed to send;
// the messages still waiting fail with closedErr. Idempotent.
func (b *Batcher) Close() {
	b.once.Do(func() {
		b.mu.Lock()
		b.closed = true
		close(b.in)
		b.mu.Unlock()
		<-b.done
	})
}

// run gathers and sends batches until Close.
func (b *Batcher) run() {
	defer close(b.done)
	var carry *Queued // taken from the queue but over the previous batch's byte cap
	for {
		first := carry
		carry = nil
		if first == nil {
			q, ok := <-b.in
			if !ok {
				return
			}
			first = q
		}
		batch := []*Queued{first}
		batch, carry = b.fill(batch, len(first.Value))
		b.send(batch)
		b.mu.RLock()
		closed := b.closed
		b.mu.RUnlock()
		if closed {
			b.fail(carry)
			return
		}
	}
}

// fill adds waiting messages to batch (whose values hold size bytes) up to the limits;
// it returns the batch and the message that did not fit under MaxBytes, if any.
func (b *Batcher) fill(batch []*Queued, size int) ([]*Queued, *Queued) {
	var linger <-chan time.Time
	if b.limits.Max > 1 && b.limits.Linger > 0 {
		t := time.NewTimer(b.limits.Linger)
		defer t.Stop()
		linger = t.C
	}
	for len(batch) < b.limits.Max {
		var q *Queued
		var ok bool
		if linger != nil {
			select {
			case q, ok = <-b.in:
			case <-linger:
				return batch, nil
			}
		} else {
			select {
			case q, ok = <-b.in:
			default:
				return batch, nil
			}
		}
		if !ok {
			return batch, nil
		}
		if b.limits.MaxBytes > 0 && size+len(q.Value) > b.limits.MaxBytes {
			return batch, q
		}
		batch, size = append(batch, q), size+len(q.Value)
	}
	return batch, nil
}

// fail resolves carry (if any) and everything still queued with closedErr.
func (b *Batcher) fail(carry *Queued) {
	if carry != nil {
		carry.Resolve(b.closedErr)
	}
	for q := range b.in {
		q.Resolve(b.closedErr)
	}
}
