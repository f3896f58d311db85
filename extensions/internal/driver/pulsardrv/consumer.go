package pulsardrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.Consumer = (*consumer)(nil)

// consumer is one consumer of one subscription, on its own client (connection). Start
// subscribes; one goroutine receives, delivers and acknowledges each message (the client
// groups the acknowledgements for ack_group_time). The client reconnects by itself when the
// connection breaks; unacknowledged messages are then redelivered. When the client gives up
// and closes the consumer instead, the goroutine subscribes again (resume.go). Messages of a
// non-persistent topic are not acknowledged: the broker keeps nothing to acknowledge, and
// their message ids repeat, so the client's ack grouping took a new message whose id had an
// acknowledgement pending for a duplicate and dropped it (most of a burst, measured).
type consumer struct {
	d       *pulsarDriver
	c       pulsar.Client
	sub     string
	id      int
	cons    pulsar.Consumer // replaced by the receive loop (resume); Close reads it after the loop ended
	watch   *closeWatch     // why cons was closed
	started atomic.Bool
	cancel  context.CancelFunc
	done    chan struct{}
	once    sync.Once
	errs    atomic.Int64
}

var subscriptionType = map[string]pulsar.SubscriptionType{
	"shared":     pulsar.Shared,
	"key_shared": pulsar.KeyShared,
	"failover":   pulsar.Failover,
	"exclusive":  pulsar.Exclusive,
}

// NewConsumer opens consumer connection id on the run's subscription (subscription 0).
func (d *pulsarDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber opens consumer connection id of subscription sub; it subscribes at Start.
func (d *pulsarDriver) NewSubscriber(_ context.Context, sub, id int) (driver.Consumer, error) {
	if sub < 0 || sub >= d.nSubs {
		return nil, fmt.Errorf("pulsar: subscription %d of %d", sub, d.nSubs)
	}
	c, err := d.newClient()
	if err != nil {
		return nil, err
	}
	return &consumer{d: d, c: c, sub: d.subscription(sub), id: id, done: make(chan struct{})}, nil
}

// Start subscribes (a lookup and a SUBSCRIBE command; the subscription exists since Setup on
// a persistent topic, so nothing sent before is missed) and starts the receive loop.
func (c *consumer) Start(_ context.Context, deliver driver.Delivery) error {
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("pulsar: consumer already started")
	}
	cons, watch, err := c.subscribe()
	if err != nil {
		close(c.done)
		return c.d.connectError(fmt.Sprintf("consumer %d on subscription %s", c.id, c.sub), err)
	}
	c.cons, c.watch = cons, watch
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	go c.loop(ctx, deliver)
	return nil
}

// subscribe creates the client library's consumer, with a closeWatch that learns why the
// library closes it.
func (c *consumer) subscribe() (pulsar.Consumer, *closeWatch, error) {
	o := c.d.opts
	w := newCloseWatch()
	cons, err := c.c.Subscribe(pulsar.ConsumerOptions{
		Topic:                       c.d.topic.String(),
		SubscriptionName:            c.sub,
		Type:                        subscriptionType[o.SubscriptionType],
		SubscriptionInitialPosition: pulsar.SubscriptionPositionLatest,
		ReceiverQueueSize:           o.ReceiverQueueSize,
		AckGroupingOptions:          &pulsar.AckGroupingOptions{MaxSize: 1000, MaxTime: o.AckGroupTime},
		Name:                        fmt.Sprintf("mqbench-%s-%d", c.d.cfg.RunID, c.id),
		BackOffPolicyFunc:           reconnectBackoff,
		Interceptors:                pulsar.ConsumerInterceptors{w},
	})
	return cons, w, err
}

func (c *consumer) loop(ctx context.Context, deliver driver.Delivery) {
	defer close(c.done)
	for {
		m, err := c.cons.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// Receive fails only once the consumer is closed, and we did not close it.
			if !c.resume(ctx) {
				return
			}
			continue
		}
		now := time.Now()
		deliver(m.Payload(), now)
		if c.d.topic.persistent {
			if err := c.cons.Ack(m); err != nil {
				// The consumer is closing under us: Pulsar delivers the message again, to
				// this consumer once it has resumed (a duplicate in the ledger) or another.
				c.errs.Add(1)
			}
		}
	}
}

// Errors counts failed acknowledgements, consumers the client library closed by itself, and
// failed attempts to subscribe again.
func (c *consumer) Errors() int64 { return c.errs.Load() }

// Close stops the receive loop and closes the consumer (which sends the grouped
// acknowledgements first) and its client. Idempotent.
func (c *consumer) Close() error {
	c.once.Do(func() {
		if c.cancel != nil {
			c.cancel()
			<-c.done
		}
		if c.cons != nil {
			c.cons.Close()
		}
		c.c.Close()
	})
	return nil
}
