package nsqdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// errClosed makes go-nsq requeue a message that arrived while the consumer was closing: it was
// not delivered, so another consumer (or a later run) gets it.
var errClosed = errors.New("nsq: consumer closed")

// consumer is one go-nsq Consumer with one connection to nsqd and one handler goroutine;
// go-nsq FINishes each message when the handler returns nil, and reconnects on its own when
// the connection breaks.
type consumer struct {
	c         *nsq.Consumer
	addr      string
	tls       bool // a TLS failure is nsqd refusing this client, not an unreachable nsqd
	started   atomic.Bool
	closed    atomic.Bool
	closeOnce sync.Once
}

// Start subscribes (IDENTIFY, SUB topic channel, RDY max_in_flight) and returns once the SUB
// is written; the channel exists since Setup, so nothing sent before is missed.
func (c *consumer) Start(_ context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return errors.New("nsq: consumer closed")
	}
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("nsq: consumer already started")
	}
	c.c.AddHandler(nsq.HandlerFunc(func(m *nsq.Message) error {
		now := time.Now()
		if c.closed.Load() {
			return errClosed
		}
		deliver(m.Body, now)
		return nil
	}))
	if err := c.c.ConnectToNSQD(c.addr); err != nil {
		if driver.IsUnreachable(err) && !driver.TLSRefused(c.tls, err) {
			return &driver.UnreachableError{Broker: "nsq", Address: c.addr, Err: err}
		}
		return fmt.Errorf("nsq: SUB at %s: %w", c.addr, err)
	}
	return nil
}

// Close sends CLS, lets go-nsq finish what is in flight and waits for it to stop (at most
// closeWait: a dead nsqd cannot answer CLS). Idempotent.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.c.Stop()
		if !c.started.Load() {
			return
		}
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-c.c.StopChan:
		case <-t.C:
		}
	})
	return nil
}
