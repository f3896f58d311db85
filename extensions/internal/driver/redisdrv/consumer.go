package redisdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

const (
	// receiveTimeout is how long the pub/sub loop waits for a message before it pings the
	// server to find out whether the connection is still alive.
	receiveTimeout = 5 * time.Second
	minBackoff     = 50 * time.Millisecond
	maxBackoff     = time.Second
)

// bytesOf returns s's bytes without copying. go-redis allocates a fresh string per message
// payload and nothing else refers to it; Delivery callbacks only read the value and do not
// retain it, so handing out the string's memory is safe and saves a copy per message.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// loop is what both consumers share: start/stop bookkeeping and error counting.
type loop struct {
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the goroutine returned
	closed    atomic.Bool
	started   atomic.Bool
	errs      atomic.Int64
	closeOnce sync.Once
}

// Errors returns how many receive errors (connection loss, timeouts, failed XACKs) the
// consumer saw and recovered from.
func (l *loop) Errors() int64 { return l.errs.Load() }

// sleep waits d or until Close; it reports false when closing.
func (l *loop) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.stop:
		return false
	case <-t.C:
		return true
	}
}

// shutdown stops the goroutine: closing the connection (closeConn) interrupts a blocked read.
// graceful, if positive, is how long the goroutine may take to finish on its own first.
func (l *loop) shutdown(graceful time.Duration, closeConn func()) {
	l.closeOnce.Do(func() {
		l.closed.Store(true)
		close(l.stop)
		if !l.started.Load() {
			closeConn()
			return
		}
		if graceful > 0 {
			t := time.NewTimer(graceful)
			select {
			case <-l.done:
			case <-t.C:
			}
			t.Stop()
		}
		closeConn()
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-l.done:
		case <-t.C:
		}
	})
}

func backoff(b time.Duration) time.Duration {
	if b == 0 {
		return minBackoff
	}
	return min(2*b, maxBackoff)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// pubsubConsumer is one SUBSCRIBE connection read by one goroutine.
//
// Redis pub/sub fans out: every consumer gets every message (see the package comment).
type pubsubConsumer struct {
	c       *redis.Client
	channel string
	ps      *redis.PubSub
	loop
}

func newLoop() loop { return loop{stop: make(chan struct{}), done: make(chan struct{})} }

// Start subscribes and returns once Redis confirmed the subscription.
func (c *pubsubConsumer) Start(ctx context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return errors.New("redis: consumer closed")
	}
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("redis: consumer already started")
	}
	sctx, cancel := context.WithTimeout(ctx, dialTimeout+ioTimeout)
	defer cancel()
	ps := c.c.Subscribe(sctx, c.channel)
	v, err := ps.Receive(sctx)
	if err == nil {
		if s, ok := v.(*redis.Subscription); !ok || s.Kind != "subscribe" {
			err = fmt.Errorf("unexpected reply %v", v)
		}
	}
	if err != nil {
		ps.Close()
		c.started.Store(false)
		return fmt.Errorf("redis: SUBSCRIBE %s: %w", c.channel, err)
	}
	c.ps = ps
	go c.run(deliver)
	return nil
}

func (c *pubsubConsumer) run(deliver driver.Delivery) {
	defer close(c.done)
	ctx := context.Background()
	var wait time.Duration
	for {
		v, err := c.ps.ReceiveTimeout(ctx, receiveTimeout)
		now := time.Now()
		if err != nil {
			if c.closed.Load() {
				return
			}
			if isTimeout(err) {
				// Quiet channel: check the connection. A failed ping makes go-redis reconnect
				// and resubscribe on the next receive.
				if perr := c.ps.Ping(ctx); perr != nil {
					c.errs.Add(1)
				}
				continue
			}
			// The connection broke; go-redis reconnects and resubscribes on the next call.
			c.errs.Add(1)
			wait = backoff(wait)
			if !c.sleep(wait) {
				return
			}
			continue
		}
		wait = 0
		if m, ok := v.(*redis.Message); ok && !c.closed.Load() {
			deliver(bytesOf(m.Payload), now)
		}
	}
}

// Close unsubscribes by closing the connection and waits for the reader goroutine. Idempotent;
// does not block on a dead broker.
func (c *pubsubConsumer) Close() error {
	c.shutdown(0, func() {
		if c.ps != nil {
			c.ps.Close()
		}
		c.c.Close()
	})
	return nil
}
