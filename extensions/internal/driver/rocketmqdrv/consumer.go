package rocketmqdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// NewConsumer prepares consumer id of the run's group; it joins at Start.
func (d *rmqDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	return d.NewSubscriber(ctx, 0, id)
}

// NewSubscriber prepares consumer id of subscription sub: a member of that subscription's
// consumer group, so every subscription gets every message.
func (d *rmqDriver) NewSubscriber(_ context.Context, sub, id int) (driver.Consumer, error) {
	if sub < 0 || sub >= d.subs {
		return nil, fmt.Errorf("rocketmq: subscription %d out of range (the run has %d)", sub, d.subs)
	}
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNsResolver(d.resolver()),
		consumer.WithGroupName(d.groupOf(sub)),
		consumer.WithInstance(instanceName("c", id)),
		consumer.WithConsumerModel(consumer.Clustering),
		// Only for queues the group has no offset for: a topic Setup created (or a group
		// Setup moved to the end of an existing topic).
		consumer.WithConsumeFromWhere(consumer.ConsumeFromFirstOffset),
		consumer.WithPullBatchSize(int32(d.opts.PullBatchSize)),
	)
	if err != nil {
		return nil, fmt.Errorf("rocketmq: consumer %d: %w", id, err)
	}
	return &rmqConsumer{d: d, pc: pc, rebalance: rebalanceImmediately(pc), id: id, group: d.groupOf(sub)}, nil
}

// joined settles the group after c joined: every consumer of the group this driver started
// before c rebalances now (it sees c, drops the queues c takes and commits their offsets),
// then c does. Without it, the earlier members learn of c only when the broker's
// notification arrives, and may consume from a queue c has started on too: duplicates.
// Consumers in other processes still rely on that notification. Each rebalance is the
// client's own, under its mutex (rebalanceImmediately): never beside the one Start began.
func (d *rmqDriver) joined(c *rmqConsumer) {
	d.startMu.Lock()
	defer d.startMu.Unlock()
	for _, m := range d.members[c.group] {
		if m.rebalance != nil && !m.closed.Load() {
			m.rebalance()
		}
	}
	if c.rebalance != nil {
		c.rebalance()
	}
	if d.members == nil {
		d.members = map[string][]*rmqConsumer{}
	}
	d.members[c.group] = append(d.members[c.group], c)
}

// left forgets a closed consumer.
func (d *rmqDriver) left(c *rmqConsumer) {
	d.startMu.Lock()
	defer d.startMu.Unlock()
	ms := d.members[c.group]
	for i, m := range ms {
		if m == c {
			d.members[c.group] = append(ms[:i:i], ms[i+1:]...)
			break
		}
	}
}

// rmqConsumer is one push consumer: the client pulls each queue assigned to it by the group's
// rebalance and calls back from several goroutines; deliveries are serialised here.
type rmqConsumer struct {
	d         *rmqDriver
	pc        rocketmq.PushConsumer
	rebalance func() // the client's locked rebalance; nil if unreachable
	id        int
	group     string
	mu        sync.Mutex
	started   atomic.Bool
	closed    atomic.Bool
	closeOnce sync.Once
}

var _ driver.Consumer = (*rmqConsumer)(nil)

// Start subscribes to the topic and joins the group: the client fetches the route and sends
// its heartbeat to the brokers; then the group's consumers of this run rebalance (joined).
// Every message published since Setup waits at the group's offset.
func (c *rmqConsumer) Start(ctx context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return errors.New("rocketmq: consumer closed")
	}
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("rocketmq: consumer already started")
	}
	// The client reports an absent name server as "route info not found": ask it first.
	if err := c.d.refreshMasters(ctx); err != nil {
		return err
	}
	err := c.pc.Subscribe(c.d.cfg.Destination, consumer.MessageSelector{},
		func(_ context.Context, msgs ...*primitive.MessageExt) (consumer.ConsumeResult, error) {
			now := time.Now()
			if c.closed.Load() {
				// Not delivered: back to the broker, which redelivers it to the group.
				return consumer.ConsumeRetryLater, nil
			}
			c.mu.Lock()
			for _, m := range msgs {
				deliver(m.Body, now)
			}
			c.mu.Unlock()
			return consumer.ConsumeSuccess, nil
		})
	if err != nil {
		return fmt.Errorf("rocketmq: consumer %d subscribe: %w", c.id, err)
	}
	if err := c.pc.Start(); err != nil {
		return fmt.Errorf("rocketmq: consumer %d start: %w", c.id, err)
	}
	c.d.joined(c)
	return nil
}

// Close leaves the group (the client commits its offsets first) and shuts the client down,
// waiting at most closeWait. Idempotent.
func (c *rmqConsumer) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		if c.started.Load() {
			c.d.left(c)
			shutdownBounded(c.pc.Shutdown)
		}
	})
	return nil
}

// shutdownBounded runs a client's Shutdown, giving up waiting after closeWait.
func shutdownBounded(shutdown func() error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = shutdown()
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
