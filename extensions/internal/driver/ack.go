package driver

import (
	"context"
	"sync"
	"sync/atomic"
)

// doneAck is an Ack that is already resolved, for drivers whose acknowledgement arrives
// synchronously with the send.
type doneAck struct{ err error }

func (a doneAck) Wait(context.Context) error { return a.err }

// Done returns an Ack already resolved with err (nil = acknowledged).
func Done(err error) Ack { return doneAck{err} }

// Poller is implemented by Acks that can say without blocking whether they are resolved.
// The runner asks before it waits: an Ack already resolved (every message of a batch once
// its batch is answered) then costs no timeout context, which was a seventh of the
// generator's CPU at 34,000 msg/s in MPUB batches.
type Poller interface {
	// Poll returns true and the outcome once the Ack is resolved, else false at once.
	Poll() (done bool, err error)
}

func (a doneAck) Poll() (bool, error) { return true, a.err }

// ChanAck is an Ack whose outcome arrives as one value on C, sent by the client library (a
// send callback, go-nsq's done channel). Wait keeps the outcome it took from C, so it may be
// called again (by the runner and by a test) and returns the same.
type ChanAck[T any] struct {
	// C holds the one value without blocking its sender (capacity 1).
	C     chan T
	errOf func(T) error // the outcome a value means
	mu    sync.Mutex
	got   bool
	err   error
}

var (
	_ Ack    = doneAck{}
	_ Ack    = (*ChanAck[error])(nil)
	_ Poller = doneAck{}
	_ Poller = (*ChanAck[error])(nil)
	_ Poller = (*Pending)(nil)
)

// NewChanAck returns a ChanAck whose outcome is errOf of the value sent on its C.
func NewChanAck[T any](errOf func(T) error) *ChanAck[T] {
	return &ChanAck[T]{C: make(chan T, 1), errOf: errOf}
}

func (a *ChanAck[T]) Wait(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.got {
		return a.err
	}
	select {
	case v := <-a.C:
		a.got, a.err = true, a.errOf(v)
		return a.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Poll takes the outcome from C if it is there.
func (a *ChanAck[T]) Poll() (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.got {
		select {
		case v := <-a.C:
			a.got, a.err = true, a.errOf(v)
		default:
			return false, nil
		}
	}
	return true, a.err
}

// Pending is an Ack its sender resolves once, later and from any goroutine (a batch's
// insert, a request's answer, a settlement); every Wait then returns the outcome. Embed it,
// or use it through a pointer, never a copy. Its channel is made only when a Wait must
// block: the runner polls first, and most messages of a batch are resolved by then (one
// channel per message was a third of a batching publisher's Send).
type Pending struct {
	resolved atomic.Bool
	wake     atomic.Pointer[chan struct{}] // closed by Resolve, once a Wait made it
	err      error                         // written before resolved is set
}

var _ Ack = (*Pending)(nil)

// NewPending returns an unresolved Pending (the zero value is one too).
func NewPending() Pending { return Pending{} }

// Resolve records the outcome (nil: acknowledged) and wakes every Wait. Call it once.
func (p *Pending) Resolve(err error) {
	p.err = err
	p.resolved.Store(true)
	if c := p.wake.Load(); c != nil {
		close(*c)
	}
}

func (p *Pending) Wait(ctx context.Context) error {
	if p.resolved.Load() {
		return p.err
	}
	c := make(chan struct{})
	if !p.wake.CompareAndSwap(nil, &c) {
		c = *p.wake.Load() // another Wait's
	}
	// Resolve stores resolved before it loads wake, this stored wake before it loads
	// resolved: at least one of the two sees the other's store, so no Wait sleeps forever.
	if p.resolved.Load() {
		return p.err
	}
	select {
	case <-c:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Poll reports the outcome once Resolve was called.
func (p *Pending) Poll() (bool, error) {
	if p.resolved.Load() {
		return true, p.err
	}
	return false, nil
}
