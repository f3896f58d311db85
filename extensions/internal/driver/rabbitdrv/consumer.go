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

// consumer is one connection with one channel and one basic.consume, read by one goroutine.
// When the connection or channel dies, that goroutine opens a new connection with backoff,
// re-declares what the run declared and the consumer needs (see rabbitDriver.redeclare),
// issues basic.qos and basic.consume again and goes on delivering into the same callback.
type consumer struct {
	d        *rabbitDriver
	name     string // connection name, shown in the management UI
	queue    string
	tag      string
	stream   bool
	prefetch int
	autoAck  bool
	ackEvery int

	// answer, when set, replaces deliver: a responder (see reply.go) publishes its reply on
	// the consuming channel; the request is acknowledged afterwards, like a delivery.
	answer func(ch *amqp.Channel, d *amqp.Delivery)
	rs     driver.Restamper // joins a header's stamp to its body; run's goroutine only

	mu      sync.Mutex // guards conn, ch, started against Close
	conn    *amqp.Connection
	ch      *amqp.Channel
	born    time.Time // when conn was opened
	started bool

	// stream: the offset of the last delivery, to resume after it on a new connection.
	lastOffset int64
	haveOffset bool
	startedAt  time.Time

	// acks counts the basic.ack frames sent (each covering every delivery up to it).
	acks atomic.Uint64
	// unacked: deliveries the callback took that are not acknowledged yet (consume's
	// pending), for window.
	unacked atomic.Int64

	closed    atomic.Bool
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the goroutine returned
	ctx       context.Context
	cancel    context.CancelFunc // aborts a dial in progress
	closeOnce sync.Once

	errs       atomic.Int64
	reconnects atomic.Int64
}

// newSubscriber opens consumer id of subscription sub (ids are unique across subscriptions):
// the first connection and channel with the prefetch QoS; Start subscribes to the
// subscription's queue.
func (d *rabbitDriver) newSubscriber(ctx context.Context, sub, id int) (*consumer, error) {
	if sub < 0 || sub >= d.subs {
		return nil, fmt.Errorf("rabbitmq: subscription %d out of range (the run has %d)", sub, d.subs)
	}
	c, err := d.openConsumer(ctx, d.queueOf(sub), fmt.Sprintf("mqbench-sub-%d", id), fmt.Sprintf("mqbench-%s-%d", d.cfg.RunID, id), nil)
	if err != nil {
		return nil, err
	}
	d.consumers.add(c)
	return c, nil
}

// openConsumer opens a consumer of queue with the run's settings whose connection is called
// name and whose basic.consume tag is tag; answer, when not nil, handles each delivery
// instead of Start's callback.
func (d *rabbitDriver) openConsumer(ctx context.Context, queue, name, tag string, answer func(*amqp.Channel, *amqp.Delivery)) (*consumer, error) {
	o := d.opts
	c := &consumer{
		d:        d,
		name:     name,
		queue:    queue,
		tag:      tag,
		answer:   answer,
		stream:   o.QueueType == "stream",
		prefetch: o.Prefetch,
		autoAck:  o.AutoAck,
		ackEvery: o.AckEvery,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	conn, ch, err := c.open(ctx)
	if err != nil {
		return nil, err
	}
	c.conn, c.ch, c.born = conn, ch, time.Now()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// open dials a connection with one channel and the prefetch QoS; ctx ending aborts it at any
// step.
func (c *consumer) open(ctx context.Context) (*amqp.Connection, *amqp.Channel, error) {
	conn, ch, _, err := c.subscribe(ctx, false)
	return conn, ch, err
}

// subscribe opens a connection and a channel with the prefetch QoS; with resume it also
// re-declares what the run declared (see rabbitDriver.redeclare) and issues basic.consume.
// ctx ending aborts it at any step.
func (c *consumer) subscribe(ctx context.Context, resume bool) (*amqp.Connection, *amqp.Channel, <-chan amqp.Delivery, error) {
	conn, release, err := c.d.dialGuarded(ctx, c.name, false)
	if err != nil {
		return nil, nil, nil, err
	}
	ch, deliveries, err := c.channel(conn, resume)
	if !release() && err == nil {
		err = ctx.Err() // the socket was closed under the opening sequence
	}
	if err != nil {
		closeConn(conn)
		return nil, nil, nil, err
	}
	return conn, ch, deliveries, nil
}

func (c *consumer) channel(conn *amqp.Connection, resume bool) (*amqp.Channel, <-chan amqp.Delivery, error) {
	if resume {
		if err := c.d.redeclare(conn); err != nil {
			return nil, nil, err
		}
	}
	ch, err := conn.Channel()
	if err != nil {
		return nil, nil, fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	if err := ch.Qos(c.prefetch, 0, false); err != nil {
		return nil, nil, fmt.Errorf("rabbitmq: basic.qos prefetch %d: %w", c.prefetch, err)
	}
	if !resume {
		return ch, nil, nil
	}
	deliveries, err := ch.Consume(c.queue, c.tag, c.autoAck, false, false, false, c.args())
	if err != nil {
		return nil, nil, fmt.Errorf("rabbitmq: basic.consume on queue %s: %w", c.queue, err)
	}
	return ch, deliveries, nil
}

// args are basic.consume's arguments. A stream is read from the next message appended
// ("next") on the first subscription; after a reconnect from just after the last message
// delivered, or, when none was, from the time of the first subscription (a stream resumes
// at chunk granularity: messages before it may come again and count as duplicates or
// foreign messages, none is skipped).
func (c *consumer) args() amqp.Table {
	switch {
	case !c.stream:
		return nil
	case c.haveOffset:
		return amqp.Table{"x-stream-offset": c.lastOffset + 1}
	case !c.startedAt.IsZero():
		return amqp.Table{"x-stream-offset": c.startedAt}
	}
	return amqp.Table{"x-stream-offset": "next"}
}

// Start issues basic.consume and returns once the broker answered consume-ok: every message
// that reaches the queue from then on is delivered (for a stream: every message appended
// from then on).
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed.Load():
		return errors.New("rabbitmq: consumer closed")
	case c.started:
		return errors.New("rabbitmq: consumer already started")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	deliveries, err := c.ch.Consume(c.queue, c.tag, c.autoAck, false, false, false, c.args())
	if err != nil {
		return fmt.Errorf("rabbitmq: basic.consume on queue %s: %w", c.queue, err)
	}
	c.started = true
	c.startedAt = time.Now().Truncate(time.Second)
	go c.run(c.ch, deliveries, deliver)
	return nil
}

// run delivers until Close, re-subscribing on a new connection whenever the current one dies.
func (c *consumer) run(ch *amqp.Channel, deliveries <-chan amqp.Delivery, deliver driver.Delivery) {
	defer close(c.done)
	var b driver.Backoff
	for {
		if c.consume(ch, deliveries, deliver) {
			return // closed
		}
		c.errs.Add(1) // the channel closed under us
		c.mu.Lock()
		old, born := c.conn, c.born
		c.mu.Unlock()
		closeConn(old) // a channel-level error or a cancelled consumer leaves it open
		b.Died(born)
		if ch, deliveries = c.resubscribe(&b); deliveries == nil {
			return
		}
	}
}

// resubscribe opens a new connection and subscribes again, waiting *wait before each attempt
// (growing 100 ms → 2 s). It returns a nil channel once the consumer is closed.
func (c *consumer) resubscribe(b *driver.Backoff) (*amqp.Channel, <-chan amqp.Delivery) {
	for {
		if !b.Sleep(c.stop) {
			return nil, nil
		}
		conn, ch, deliveries, err := c.subscribe(c.ctx, true)
		if err != nil {
			continue
		}
		c.mu.Lock()
		if c.closed.Load() {
			c.mu.Unlock()
			closeConn(conn)
			return nil, nil
		}
		c.conn, c.ch, c.born = conn, ch, time.Now()
		c.mu.Unlock()
		c.reconnects.Add(1)
		return ch, deliveries
	}
}

// consume delivers from one subscription until Close (true) or until the subscription ends
// (false: broker gone, channel closed, consumer cancelled). With manual acknowledgements it
// acknowledges with multiple=true: after ackEvery deliveries, or once no further delivery
// arrived for ackDelay (see the package comment).
func (c *consumer) consume(ch *amqp.Channel, deliveries <-chan amqp.Delivery, deliver driver.Delivery) bool {
	var pending int
	var last uint64
	// A new channel starts with nothing unacknowledged (the old one's went back to the queue).
	c.unacked.Store(0)
	ack := func() {
		if pending == 0 {
			return
		}
		if err := ch.Ack(last, true); err != nil {
			c.errs.Add(1)
		} else {
			c.acks.Add(1)
		}
		pending = 0
		c.unacked.Store(0)
	}
	// idle fires ackDelay after the consumer ran out of waiting deliveries with some still
	// unacknowledged.
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	defer idle.Stop()
	for {
		var d amqp.Delivery
		var ok bool
		select {
		case d, ok = <-deliveries:
		default:
			if pending > 0 {
				idle.Reset(ackDelay)
			}
			for waiting := true; waiting; {
				select {
				case d, ok = <-deliveries:
					idle.Stop()
					waiting = false
				case <-idle.C:
					ack() // quiet for ackDelay: acknowledge what was delivered
				case <-c.stop:
					ack()
					return true
				}
			}
		}
		if !ok {
			return c.closed.Load()
		}
		now := time.Now()
		if c.closed.Load() {
			// Not delivered, so not acknowledged: the broker requeues it.
			ack()
			return true
		}
		if c.answer != nil {
			c.answer(ch, &d)
		} else {
			stamp, _ := d.Headers[driver.StampHeader].([]byte)
			deliver(c.rs.Join(stamp, d.Body), now)
		}
		if c.stream {
			if off, ok := d.Headers["x-stream-offset"].(int64); ok {
				c.lastOffset, c.haveOffset = off, true
			}
		}
		if c.autoAck {
			continue
		}
		pending++
		c.unacked.Store(int64(pending))
		last = d.DeliveryTag
		if pending >= c.ackEvery {
			ack()
		}
	}
}

// window bounds the deliveries the broker has sent this consumer that its callback has not
// taken yet (see consumerSet.window): prefetch less what the callback took and has not
// acknowledged, while it consumes with manual acknowledgements; 0 before Start, after Close
// (what was not delivered went back to the queue) and with auto_ack (the broker holds none).
func (c *consumer) window() int64 {
	if !c.subscribed() || c.autoAck {
		return 0
	}
	return max(0, int64(c.prefetch)-c.unacked.Load())
}

// subscribed says Start subscribed and Close has not ended it (a consumer reconnecting is
// subscribed again soon, with what it had not acknowledged back in the queue).
func (c *consumer) subscribed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started && !c.closed.Load()
}

// Errors counts failed acknowledgements and subscriptions that ended under the consumer.
func (c *consumer) Errors() int64 { return c.errs.Load() }

// Reconnects counts the subscriptions made again on a new connection.
func (c *consumer) Reconnects() int64 { return c.reconnects.Load() }

// Close stops delivering (no delivery happens after Close returns) and reconnecting,
// acknowledges what was delivered and closes the connection; the broker requeues what was
// sent but not delivered. Idempotent; bounded against a dead broker.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed.Store(true)
		close(c.stop)
		c.cancel()
		started := c.started
		c.mu.Unlock()
		if started {
			waitDone(c.done)
		}
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		closeConn(conn)
	})
	return nil
}
