package amqp10drv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer is one connection with one session; Start attaches a receiver with the options'
// link credit and delivers from one goroutine, accepting each message after the callback.
// When the link or connection dies, that goroutine opens a new connection, session and
// receiver with driver.Backoff and goes on: messages delivered but not yet accepted go back
// to the queue and arrive again (the ledger counts them as duplicates).
type consumer struct {
	d    *amqpDriver
	role string

	mu      sync.Mutex // guards the fields below against Close
	conn    *amqp.Conn
	sess    *amqp.Session
	rcv     *amqp.Receiver
	born    time.Time
	started bool

	reconnects atomic.Int64

	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	done      chan struct{} // closed when the delivery goroutine returned
	closeOnce sync.Once
}

func (d *amqpDriver) newConsumer(ctx context.Context, id int) (*consumer, error) {
	c := &consumer{d: d, role: fmt.Sprintf("cons-%d", id), done: make(chan struct{})}
	conn, sess, err := c.connect(ctx)
	if err != nil {
		return nil, err
	}
	c.conn, c.sess, c.born = conn, sess, time.Now()
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// connect dials a connection and opens its session.
func (c *consumer) connect(ctx context.Context) (*amqp.Conn, *amqp.Session, error) {
	conn, err := c.d.dial(ctx, c.role)
	if err != nil {
		return nil, nil, err
	}
	sess, err := session(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, nil, c.d.linkErr("open session for", err)
	}
	return conn, sess, nil
}

// attach attaches the receiver and grants the first credit. Credit -1: the driver grants
// credit itself (see consume).
func (c *consumer) attach(ctx context.Context, sess *amqp.Session) (*amqp.Receiver, error) {
	actx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	ro := &amqp.ReceiverOptions{Credit: -1, SourceCapabilities: c.d.capabilities()}
	if c.d.opts.Accept == AcceptAuto {
		// The broker sends every message pre-settled; AcceptMessage is then a no-op (and
		// still accepts if a broker ignored the request).
		ro.RequestedSenderSettleMode = amqp.SenderSettleModeSettled.Ptr()
	}
	rcv, err := sess.NewReceiver(actx, c.d.address, ro)
	if err != nil {
		return nil, c.d.linkErr("attach receiver to", err)
	}
	if err := rcv.IssueCredit(uint32(c.d.opts.Credit)); err != nil {
		closeWith(rcv.Close)
		return nil, c.d.linkErr("grant credit on", err)
	}
	return rcv, nil
}

// Start attaches the receiver (RabbitMQ grants nothing before the attach completes, so
// messages sent after Start returns are delivered) and starts delivering.
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return errors.New("amqp10: consumer already started")
	}
	if c.ctx.Err() != nil {
		return errors.New("amqp10: consumer closed")
	}
	rcv, err := c.attach(ctx, c.sess)
	if err != nil {
		return err
	}
	c.rcv = rcv
	c.started = true
	go c.run(rcv, deliver)
	return nil
}

// run delivers until Close, re-attaching on a new connection whenever the current one dies.
func (c *consumer) run(rcv *amqp.Receiver, deliver driver.Delivery) {
	defer close(c.done)
	var b driver.Backoff
	for {
		c.consume(rcv, deliver)
		if c.ctx.Err() != nil {
			return // closed
		}
		c.mu.Lock()
		conn, born := c.conn, c.born
		c.mu.Unlock()
		_ = conn.Close() // a detached link leaves the connection open: drop it too
		b.Died(born)
		if rcv = c.reattach(&b); rcv == nil {
			return
		}
	}
}

// reattach opens a new connection, session and receiver, paced by b; nil once closed.
func (c *consumer) reattach(b *driver.Backoff) *amqp.Receiver {
	for {
		if !b.Sleep(c.ctx.Done()) {
			return nil
		}
		conn, sess, err := c.connect(c.ctx)
		if err != nil {
			continue
		}
		rcv, err := c.attach(c.ctx, sess)
		if err != nil {
			_ = conn.Close()
			continue
		}
		c.mu.Lock()
		if c.ctx.Err() != nil {
			c.mu.Unlock()
			_ = conn.Close()
			return nil
		}
		c.conn, c.sess, c.rcv, c.born = conn, sess, rcv, time.Now()
		c.mu.Unlock()
		c.reconnects.Add(1)
		return rcv
	}
}

// consume delivers and accepts until Close or until the link or connection dies; it grants
// the next credit messages only once the whole grant was used up. go-amqp's automatic credit
// (topping up while deliveries are in flight) stalls the RabbitMQ 3.10 rabbitmq_amqp1_0
// plugin's links for good (measured: a receiver with credit 16 stopped after 203 of 2000
// queued messages, with 64 after 224); a flow sent while no delivery is in flight never did.
// The pause this costs is one round trip per credit messages.
func (c *consumer) consume(rcv *amqp.Receiver, deliver driver.Delivery) {
	credit := c.d.opts.Credit
	used := 0
	for {
		msg, err := rcv.Receive(c.ctx, nil)
		if err != nil {
			return
		}
		at := time.Now()
		deliver(body(msg), at)
		if err := rcv.AcceptMessage(c.ctx, msg); err != nil {
			return
		}
		if used++; used == credit {
			used = 0
			if err := rcv.IssueCredit(uint32(credit)); err != nil {
				return
			}
		}
	}
}

// Reconnects counts the connections opened after the first one.
func (c *consumer) Reconnects() int64 { return c.reconnects.Load() }

// body is the message's data sections, joined (one section, as mqbench sends, is not copied).
func body(m *amqp.Message) []byte {
	switch len(m.Data) {
	case 0:
		if b, ok := m.Value.([]byte); ok {
			return b
		}
		return nil
	case 1:
		return m.Data[0]
	}
	return bytes.Join(m.Data, nil)
}

// Close stops delivering and closes the connection: messages delivered but not yet accepted
// go back to the queue. Idempotent; bounded.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		started := c.started
		c.cancel()
		c.mu.Unlock()
		if started {
			wait(c.done, closeTimeout)
		}
		// Closing the connection ends the link (RabbitMQ 3.10's plugin never answers a
		// receiver's detach either) and releases the unaccepted deliveries.
		c.mu.Lock()
		conn := c.conn
		c.mu.Unlock()
		_ = conn.Close()
		if started {
			wait(c.done, closeTimeout)
		}
	})
	return nil
}
