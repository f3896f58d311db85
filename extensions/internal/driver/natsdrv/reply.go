package natsdrv

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Request-reply runs in core mode only: a request is a core publish with a reply subject (the
// requester's inbox) and a responder answers with msg.Respond. In JetStream mode the publish
// acknowledgement comes from the stream, not from a responder, and a stream's consumer cannot
// answer a request's reply subject, so there is nothing request-reply to measure.

var (
	_ driver.RequestReply = (*natsDriver)(nil)
	_ driver.Publisher    = (*requester)(nil)
	_ driver.ValueCopier  = (*requester)(nil)
	_ driver.Responder    = (*responder)(nil)
)

var errRequestReplyMode = errors.New("nats: request-reply needs mode: core (in JetStream mode the publish acknowledgement comes from the stream, not from a responder)")

// requestReply reports whether the options allow request-reply (Spec.RequestReply).
func requestReply(o driver.Options) bool { return o.(*Options).Mode == "core" }

// responderQueue is the queue group the run's responders share. It differs from the
// consumers' group, so that consumers of the same run never take requests.
func (d *natsDriver) responderQueue() string { return d.queue + "-responders" }

// NewRequester opens requester connection id, subscribed to its own inbox before it returns
// (one subscription for all its requests, not one per request).
func (d *natsDriver) NewRequester(ctx context.Context, id int, deliver driver.Delivery) (driver.Publisher, error) {
	if d.opts.Mode != "core" {
		return nil, errRequestReplyMode
	}
	r := &requester{subject: d.cfg.Destination, deliver: deliver}
	nc, err := d.connect(fmt.Sprintf("mqbench-req-%d", id), r.onAsyncError)
	if err != nil {
		return nil, err
	}
	r.nc, r.inbox = nc, nc.NewInbox()
	sub, err := nc.Subscribe(r.inbox, r.onReply)
	if err == nil {
		r.sub = sub
		err = sub.SetPendingLimits(pendingMsgsLimit, pendingBytesLimit)
	}
	if err == nil {
		err = flush(ctx, nc) // the server has the subscription: no reply can miss it
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: requester %d: subscribe to its inbox: %w", id, err)
	}
	return r, nil
}

// requester publishes requests with its inbox as reply subject and hands every reply arriving
// there to deliver, from the subscription's goroutine (nats.go runs one per subscription).
type requester struct {
	nc      *nats.Conn
	subject string
	inbox   string
	sub     *nats.Subscription
	deliver driver.Delivery

	// inflight and closed: no delivery after Close returns (as in consumer).
	inflight atomic.Int64
	closed   atomic.Bool

	noResponders atomic.Int64 // requests the server answered with 503: nobody subscribed
	asyncCounts
}

// Send publishes one request; like corePublisher.Send it copies the value and has no broker
// acknowledgement (nil Ack).
func (r *requester) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	return nil, r.nc.PublishRequest(r.subject, r.inbox, m.Value)
}

// CopiesValue: nats.go copies the payload into its write buffer inside PublishRequest.
func (r *requester) CopiesValue() bool { return true }

func (r *requester) Flush(ctx context.Context) error { return flush(ctx, r.nc) }

func (r *requester) onReply(m *nats.Msg) {
	now := time.Now()
	// A status message is the server's, not an echo: with no subscriber on the destination,
	// the server answers a request at once with an empty 503 ("no responders").
	if m.Header.Get("Status") != "" {
		r.noResponders.Add(1)
		return
	}
	r.inflight.Add(1)
	if !r.closed.Load() {
		r.deliver(m.Data, now)
	}
	r.inflight.Add(-1)
}

// Dropped returns how many replies the client discarded because the requester fell more than
// its pending limits behind.
func (r *requester) Dropped() int64 { return dropped(r.sub) }

// NoResponders counts requests the server bounced because no responder was subscribed.
func (r *requester) NoResponders() int64 { return r.noResponders.Load() }

// Close pushes out buffered requests (briefly), stops delivery, closes the connection and waits
// (bounded) for a reply callback in progress. Idempotent.
func (r *requester) Close() error {
	if r.closed.Swap(true) {
		return nil
	}
	closeConn(r.nc)
	deadline := time.Now().Add(closeWait)
	for r.inflight.Load() > 0 && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	return nil
}

// NewResponder opens responder connection id; Start subscribes it to the destination in the
// run's responder queue group.
func (d *natsDriver) NewResponder(_ context.Context, id int) (driver.Responder, error) {
	if d.opts.Mode != "core" {
		return nil, errRequestReplyMode
	}
	r := &responder{subject: d.cfg.Destination, queue: d.responderQueue()}
	nc, err := d.connect(fmt.Sprintf("mqbench-resp-%d", id), r.onAsyncError)
	if err != nil {
		return nil, err
	}
	r.nc = nc
	return r, nil
}

// responder echoes every request's body to its reply subject.
type responder struct {
	nc      *nats.Conn
	subject string
	queue   string

	sub     atomic.Pointer[nats.Subscription]
	started atomic.Bool
	closed  atomic.Bool

	errs atomic.Int64 // requests that could not be answered (no reply subject, connection gone)
	asyncCounts
}

// Start subscribes and returns once the server has registered the subscription.
func (r *responder) Start(ctx context.Context) error {
	if r.closed.Load() {
		return errors.New("nats: responder closed")
	}
	if r.started.Swap(true) {
		return errors.New("nats: responder already started")
	}
	sub, err := r.nc.QueueSubscribe(r.subject, r.queue, r.onRequest)
	if err != nil {
		return fmt.Errorf("nats: subscribe %s: %w", r.subject, err)
	}
	if err := sub.SetPendingLimits(pendingMsgsLimit, pendingBytesLimit); err != nil {
		_ = sub.Unsubscribe()
		return fmt.Errorf("nats: pending limits: %w", err)
	}
	r.sub.Store(sub)
	if err := flush(ctx, r.nc); err != nil {
		return fmt.Errorf("nats: confirm subscription: %w", err)
	}
	return nil
}

// onRequest answers with the request's own bytes: Respond copies them into the write buffer,
// so nothing is retained after the callback.
func (r *responder) onRequest(m *nats.Msg) {
	if r.closed.Load() {
		return
	}
	if err := m.Respond(m.Data); err != nil {
		r.errs.Add(1)
	}
}

// Errors counts requests that could not be answered.
func (r *responder) Errors() int64 { return r.errs.Load() }

// Dropped returns how many requests the client discarded because the responder fell more than
// its pending limits behind (their replies are lost).
func (r *responder) Dropped() int64 { return dropped(r.sub.Load()) }

// Close writes out the replies already answered (briefly) and closes the connection; no
// callback runs after it (nats.NoCallbacksAfterClientClose). Idempotent.
func (r *responder) Close() error {
	if !r.closed.Swap(true) {
		closeConn(r.nc)
	}
	return nil
}
