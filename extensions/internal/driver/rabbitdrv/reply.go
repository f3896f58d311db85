package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Request-reply uses RabbitMQ's direct reply-to: a requester consumes the pseudo-queue
// amq.rabbitmq.reply-to (no-ack, on the channel it publishes on) and publishes requests with
// reply-to set to it; the broker rewrites that into an address of this channel, and a
// responder's reply published to the default exchange with that routing key goes straight to
// the requester, with no reply queue to declare. Requests travel like the run's other
// publishes (the exchange and routing key of the scenario, persistent, confirms, mandatory);
// responders consume the queue like the run's consumers (prefetch, acknowledgements), so
// several share the requests.
//
// A stream queue cannot serve requests: it is read non-destructively, so every responder
// would answer every request.

// directReplyTo is the pseudo-queue a requester consumes and names as reply-to.
const directReplyTo = "amq.rabbitmq.reply-to"

var (
	_ driver.RequestReply = (*rabbitDriver)(nil)
	_ driver.Publisher    = (*requester)(nil)
	_ driver.Responder    = (*responder)(nil)
)

var errRequestReplyStream = errors.New("rabbitmq: request-reply needs a classic or quorum queue (a stream is read by every responder, so each request would be answered by all)")

// requestReply reports whether the options allow request-reply (Spec.RequestReply).
func requestReply(o driver.Options) bool { return o.(*Options).QueueType != "stream" }

// NewRequester opens requester id: a publisher whose every session (the first and each one
// after a reconnect) first consumes direct reply-to on its channel, and whose publishes carry
// it as reply-to.
func (d *rabbitDriver) NewRequester(ctx context.Context, id int, deliver driver.Delivery) (driver.Publisher, error) {
	if !requestReply(d.opts) {
		return nil, errRequestReplyStream
	}
	r := &requester{deliver: deliver}
	p := d.publisherNamed(fmt.Sprintf("mqbench-req-%d", id))
	p.replyTo, p.prepare = directReplyTo, r.consumeReplies
	r.publisher = p
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// requester is a publisher (Send, Flush, its Acks and reconnection) that also hands the
// replies arriving on its channel to deliver. Replies in flight when a connection dies are
// lost with it (the delivery ledger counts them).
type requester struct {
	*publisher
	deliver driver.Delivery

	// mu serialises deliver: after a reconnect the old session's reader may still be
	// draining while the new one starts, and the callback runs one at a time.
	mu     sync.Mutex
	closed bool
}

// consumeReplies runs on every new session's channel before anything is published on it
// (the broker refuses a reply-to of amq.rabbitmq.reply-to from a channel not consuming it).
// Direct reply-to must be consumed without acknowledgements.
func (r *requester) consumeReplies(ch *amqp.Channel) error {
	replies, err := ch.Consume(directReplyTo, "", true, false, false, false, nil)
	if err != nil {
		return fmt.Errorf("rabbitmq: consume %s (direct reply-to): %w", directReplyTo, err)
	}
	go r.read(replies)
	return nil
}

// read delivers the session's replies until its channel closes.
func (r *requester) read(replies <-chan amqp.Delivery) {
	for m := range replies {
		now := time.Now()
		r.mu.Lock()
		if !r.closed {
			r.deliver(m.Body, now)
		}
		r.mu.Unlock()
	}
}

// Close stops delivering replies (none is delivered after Close returns), then closes the
// publisher and its connection. Idempotent.
func (r *requester) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return r.publisher.Close()
}

// NewResponder opens responder id: a consumer of the queue that answers each request
// instead of delivering it.
func (d *rabbitDriver) NewResponder(ctx context.Context, id int) (driver.Responder, error) {
	if !requestReply(d.opts) {
		return nil, errRequestReplyStream
	}
	r := &responder{}
	c, err := d.openConsumer(ctx, d.queue, fmt.Sprintf("mqbench-resp-%d", id), fmt.Sprintf("mqbench-%s-resp-%d", d.cfg.RunID, id), r.answer)
	if err != nil {
		return nil, err
	}
	r.c = c
	return r, nil
}

// responder answers requests with their own body. Reconnection, prefetch and acknowledgement
// are the consumer's: a request is acknowledged after its reply was published, so one that
// was never answered is redelivered (after a reconnect, or to another responder).
type responder struct {
	c          *consumer
	unanswered atomic.Int64
}

// Start subscribes to the queue and returns once the broker answered consume-ok.
func (r *responder) Start(ctx context.Context) error {
	return r.c.Start(ctx, func([]byte, time.Time) {}) // unused: answer handles every delivery
}

// answer publishes the request's body, unchanged, to its reply-to address through the
// default exchange, on the channel it came from. Not mandatory: a reply whose requester is
// gone is dropped by the broker, as the requester's other replies are.
func (r *responder) answer(ch *amqp.Channel, req *amqp.Delivery) {
	if req.ReplyTo == "" {
		r.unanswered.Add(1) // not a request: nowhere to answer
		return
	}
	err := ch.PublishWithContext(context.Background(), "", req.ReplyTo, false, false, amqp.Publishing{Body: req.Body})
	if err != nil {
		r.unanswered.Add(1)
	}
}

// Unanswered counts requests without a reply-to and replies that could not be published.
func (r *responder) Unanswered() int64 { return r.unanswered.Load() }

// Errors counts failed acknowledgements and subscriptions that ended under the responder.
func (r *responder) Errors() int64 { return r.c.Errors() }

// Reconnects counts the subscriptions made again on a new connection.
func (r *responder) Reconnects() int64 { return r.c.Reconnects() }

// Close stops answering and closes the connection; requests received but not answered are
// requeued by the broker. Idempotent.
func (r *responder) Close() error { return r.c.Close() }
