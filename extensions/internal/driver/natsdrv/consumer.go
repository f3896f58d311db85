package natsdrv

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer is one consumer connection: a queue subscription (core) or a Consume() loop on the
// run's shared durable pull consumer (JetStream). nats.go calls the message callback from one
// goroutine per subscription; nothing else is spawned per message.
type consumer struct {
	nc      *nats.Conn
	subject string

	queue string // core

	js      jetstream.JetStream // jetstream
	stream  string
	durable string
	batch   int
	settler settler // how received messages are acknowledged (ack.go)

	mu      sync.Mutex
	started bool
	sub     *nats.Subscription
	cc      jetstream.ConsumeContext
	deliver driver.Delivery
	rs      driver.Restamper // joins a header's stamp to its body; one callback at a time

	// inflight counts callbacks inside deliver; Close waits for it to drop to zero so that no
	// delivery happens after Close returns.
	inflight atomic.Int64
	closed   atomic.Bool

	asyncCounts // slow-consumer events and other asynchronous errors (consume errors, permissions)

	closeOnce sync.Once
}

// Start subscribes and returns once the server has registered the subscription (core) or the
// first pull request (JetStream).
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("nats: consumer already started")
	}
	if c.closed.Load() {
		return errors.New("nats: consumer closed")
	}
	c.deliver = deliver
	if c.js == nil {
		sub, err := c.nc.QueueSubscribe(c.subject, c.queue, c.onCoreMsg)
		if err != nil {
			return fmt.Errorf("nats: subscribe %s: %w", c.subject, err)
		}
		if err := sub.SetPendingLimits(pendingMsgsLimit, pendingBytesLimit); err != nil {
			_ = sub.Unsubscribe()
			return fmt.Errorf("nats: pending limits: %w", err)
		}
		c.sub = sub
	} else {
		cons, err := c.js.Consumer(ctx, c.stream, c.durable)
		if err != nil {
			return fmt.Errorf("nats: consumer %s on stream %s (was Setup called?): %w", c.durable, c.stream, err)
		}
		cc, err := cons.Consume(c.onJSMsg,
			jetstream.PullMaxMessages(c.batch),
			jetstream.PullHeartbeat(pullHeartbeat),
			jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) { c.onAsyncError(err) }),
		)
		if err != nil {
			return fmt.Errorf("nats: consume %s: %w", c.durable, err)
		}
		c.cc = cc
	}
	c.started = true
	if err := flush(ctx, c.nc); err != nil {
		return fmt.Errorf("nats: confirm subscription: %w", err)
	}
	return nil
}

func (c *consumer) onCoreMsg(m *nats.Msg) {
	now := time.Now()
	c.inflight.Add(1)
	if !c.closed.Load() {
		c.deliver(c.rs.JoinText(stampOf(m.Header), m.Data), now)
	}
	c.inflight.Add(-1)
}

func (c *consumer) onJSMsg(m jetstream.Msg) {
	now := time.Now()
	c.inflight.Add(1)
	if !c.closed.Load() {
		c.deliver(c.rs.JoinText(stampOf(m.Headers()), m.Data()), now)
		// After the delivery is recorded: a receiver that stops before acknowledging a
		// message leaves it to be delivered again rather than settled unseen.
		c.settler.settle(m)
	}
	c.inflight.Add(-1)
}

// stampOf returns a message's stamp header (payload.stamp: header), "" when it has none.
func stampOf(h nats.Header) string {
	if h == nil {
		return ""
	}
	if v := h[driver.StampHeader]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// Dropped returns how many messages the client discarded because this consumer fell more than
// its pending limits (1M messages / 1 GB) behind (core mode; 0 for JetStream, where the server
// keeps what the client did not pull).
func (c *consumer) Dropped() int64 {
	c.mu.Lock()
	sub := c.sub
	c.mu.Unlock()
	return dropped(sub)
}

// asyncCounts counts what nats.go reports asynchronously on a connection (onAsyncError is the
// handler connect installs; a JetStream consumer also feeds it its consume errors). Embedded in
// consumer, requester and responder.
type asyncCounts struct {
	slowConsumer atomic.Int64 // slow-consumer events
	asyncErrors  atomic.Int64 // every other error
}

func (a *asyncCounts) onAsyncError(err error) {
	if errors.Is(err, nats.ErrSlowConsumer) {
		a.slowConsumer.Add(1)
		return
	}
	a.asyncErrors.Add(1)
}

// SlowConsumerEvents returns how many slow-consumer errors nats.go reported for the connection.
func (a *asyncCounts) SlowConsumerEvents() int64 { return a.slowConsumer.Load() }

// AsyncErrors returns how many other asynchronous errors the connection saw (for a JetStream
// consumer, consume errors such as missed heartbeats while the server was away).
func (a *asyncCounts) AsyncErrors() int64 { return a.asyncErrors.Load() }

// dropped returns how many messages the client discarded from sub because its reader fell more
// than its pending limits behind; 0 when sub is nil (not subscribed yet).
func dropped(sub *nats.Subscription) int64 {
	if sub == nil {
		return 0
	}
	n, err := sub.Dropped()
	if err != nil {
		return 0
	}
	return int64(n)
}

// Close stops delivery, waits (bounded) for a callback in progress, sends the
// acknowledgements still pending (JetStream) and closes the connection, which writes out what
// it buffered. It never waits on the network beyond the write timeout. Idempotent.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.mu.Lock()
		cc := c.cc
		c.mu.Unlock()
		if cc != nil {
			cc.Stop()
		}
		deadline := time.Now().Add(closeWait)
		for c.inflight.Load() > 0 && time.Now().Before(deadline) {
			runtime.Gosched()
			time.Sleep(time.Millisecond)
		}
		if c.settler != nil {
			c.settler.close()
		}
		c.nc.Close()
	})
	return nil
}
