package zmqdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer is one bound PULL or SUB socket and its receive goroutine.
type consumer struct {
	d    *zmqDriver
	id   int
	ep   string
	sock zmq4.Socket

	started   atomic.Bool
	closed    atomic.Bool
	done      chan struct{}
	closeOnce sync.Once
}

// Start makes the endpoint known to producers opened afterwards and begins receiving. The
// socket is bound already (NewConsumer), so a producer's connect succeeds from now on.
func (c *consumer) Start(_ context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return fmt.Errorf("zeromq: consumer %d is closed", c.id)
	}
	if !c.started.CompareAndSwap(false, true) {
		return fmt.Errorf("zeromq: consumer %d started twice", c.id)
	}
	c.d.register(c.id, c.ep)
	go c.loop(deliver)
	return nil
}

func (c *consumer) loop(deliver driver.Delivery) {
	defer close(c.done)
	for {
		msg, err := c.sock.Recv()
		at := time.Now()
		if c.closed.Load() {
			return
		}
		if err != nil {
			// A producer that disconnected shows up as one error from its connection; the
			// socket goes on receiving from the others.
			continue
		}
		if n := len(msg.Frames); n > 0 {
			// push-pull: [payload]; pub-sub: [topic, payload].
			deliver(msg.Frames[n-1], at)
		}
	}
}

// Close stops delivery, unbinds and waits (bounded) for the receive goroutine. Idempotent.
func (c *consumer) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.d.unregister(c.id)
		// A connection its producer already closed is reported as "use of closed network
		// connection": nothing went wrong.
		if e := c.sock.Close(); e != nil && !errors.Is(e, net.ErrClosed) {
			err = fmt.Errorf("zeromq: consumer %d: close: %w", c.id, e)
		}
		if !c.started.Load() {
			return
		}
		select {
		case <-c.done:
		case <-time.After(closeWait):
			err = fmt.Errorf("zeromq: consumer %d: receive loop still running %v after Close", c.id, closeWait)
		}
	})
	return err
}
