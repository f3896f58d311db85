package mqttdrv

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer is one connection subscribed to the run's filter. When the connection breaks it
// opens a new one under the same client id and subscribes again, pacing attempts with
// driver.Backoff: with clean_start false the broker kept the session and delivers what it
// queued meanwhile; with a clean start what was published meanwhile is gone, as MQTT says.
type consumer struct {
	d      *mqttDriver
	p      params
	filter string
	qos    byte

	// deliverMu: a connection being replaced may still be handing over its last message
	// while the new one hands over its first; Delivery and the Restamper are not shared.
	deliverMu sync.Mutex
	deliver   driver.Delivery
	rs        driver.Restamper

	mu         sync.Mutex
	c          conn
	started    bool
	stop       chan struct{}
	watching   sync.WaitGroup
	closeOnce  sync.Once
	reconnects atomic.Int64
	errors     atomic.Int64
}

var _ driver.Consumer = (*consumer)(nil)

// Start connects and subscribes; it returns once the SUBACK arrived, so anything published
// afterwards matches the subscription.
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.stop:
		return errors.New("mqtt: consumer closed")
	default:
	}
	if c.started {
		return errors.New("mqtt: consumer already started")
	}
	c.started, c.deliver = true, deliver
	c.p.onMessage = c.received
	conn, err := c.connect(ctx)
	if err != nil {
		return err
	}
	c.c = conn
	c.watching.Add(1)
	go c.watch(conn)
	return nil
}

func (c *consumer) received(body []byte, stamp string, at time.Time) {
	c.deliverMu.Lock()
	defer c.deliverMu.Unlock()
	c.deliver(c.rs.JoinText(stamp, body), at)
}

func (c *consumer) connect(ctx context.Context) (conn, error) {
	conn, err := c.d.dial(ctx, c.p)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, c.p.timeout)
	defer cancel()
	if err := conn.subscribe(sctx, c.filter, c.qos); err != nil {
		conn.disconnect()
		return nil, err
	}
	return conn, nil
}

// watch reconnects until Close.
func (c *consumer) watch(conn conn) {
	defer c.watching.Done()
	var b driver.Backoff
	for {
		born := time.Now()
		select {
		case <-c.stop:
			return
		case <-conn.lost():
		}
		b.Died(born)
		for {
			if !b.Sleep(c.stop) {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), c.p.timeout)
			next, err := c.connect(ctx)
			cancel()
			if err != nil {
				c.errors.Add(1)
				continue
			}
			c.mu.Lock()
			select {
			case <-c.stop:
				c.mu.Unlock()
				next.disconnect()
				return
			default:
			}
			c.c, conn = next, next
			c.mu.Unlock()
			c.reconnects.Add(1)
			break
		}
	}
}

// Reconnects counts the connections opened after the first.
func (c *consumer) Reconnects() int64 { return c.reconnects.Load() }

// Errors counts failed reconnection attempts.
func (c *consumer) Errors() int64 { return c.errors.Load() }

// Close stops reconnecting and disconnects (a persistent session stays on the broker until
// Teardown). Idempotent.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		close(c.stop)
		conn := c.c
		c.mu.Unlock()
		if conn != nil {
			conn.disconnect()
		}
		c.watching.Wait()
	})
	return nil
}
