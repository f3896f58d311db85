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
type consumer struct {
	conn     *amqp.Connection
	ch       *amqp.Channel
	queue    string
	tag      string
	args     amqp.Table
	autoAck  bool
	ackEvery int

	mu        sync.Mutex
	started   bool
	closed    atomic.Bool
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the goroutine returned
	closeOnce sync.Once

	errs atomic.Int64
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
	deliveries, err := c.ch.Consume(c.queue, c.tag, c.autoAck, false, false, false, c.args)
	if err != nil {
		return fmt.Errorf("rabbitmq: basic.consume on queue %s: %w", c.queue, err)
	}
	c.started = true
	go c.run(deliveries, deliver)
	return nil
}

// run delivers until Close or until the channel closes (broker gone, queue deleted). With
// manual acknowledgements it acknowledges with multiple=true: after ackEvery deliveries, or
// once no further delivery arrived for ackDelay (see the package comment).
func (c *consumer) run(deliveries <-chan amqp.Delivery, deliver driver.Delivery) {
	defer close(c.done)
	var pending int
	var last uint64
	ack := func() {
		if pending == 0 {
			return
		}
		if err := c.ch.Ack(last, true); err != nil {
			c.errs.Add(1)
		}
		pending = 0
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
					return
				}
			}
		}
		if !ok {
			if !c.closed.Load() {
				c.errs.Add(1) // the channel closed under us
			}
			return
		}
		now := time.Now()
		if c.closed.Load() {
			// Not delivered, so not acknowledged: the broker requeues it.
			ack()
			return
		}
		deliver(d.Body, now)
		if c.autoAck {
			continue
		}
		pending++
		last = d.DeliveryTag
		if pending >= c.ackEvery {
			ack()
		}
	}
}

// Errors returns how many acknowledgements failed or whether the channel closed under the
// consumer (1).
func (c *consumer) Errors() int64 { return c.errs.Load() }

// Close stops delivering (no delivery happens after Close returns), acknowledges what was
// delivered and closes the connection; the broker requeues what was sent but not delivered.
// Idempotent; bounded against a dead broker.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed.Store(true)
		close(c.stop)
		started := c.started
		c.mu.Unlock()
		if started {
			t := time.NewTimer(closeWait)
			select {
			case <-c.done:
			case <-t.C:
			}
			t.Stop()
		}
		closeConn(c.conn)
	})
	return nil
}
