package amqp10drv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var errPublisherClosed = errors.New("amqp10: publisher closed")

// publisher is one producer: one connection, one session, one sender. With unsettled sends a
// watcher goroutine waits for each message's disposition in send order and resolves its Ack;
// slots bounds the unsettled messages to maxInFlight. Message.Key is not sent.
type publisher struct {
	d       *amqpDriver
	conn    *amqp.Conn
	sess    *amqp.Session
	snd     *amqp.Sender
	settled bool
	durable bool

	mu      sync.Mutex // serialises Send against Close
	closed  bool
	slots   chan struct{} // one token per unsettled message
	pending chan *ack     // in send order, to the watcher
	done    chan struct{} // closed when the watcher returned

	closeOnce sync.Once
}

// ack is one unsettled message's Ack.
type ack struct {
	receipt amqp.SendReceipt
	done    chan struct{}
	err     error
}

func (a *ack) Wait(ctx context.Context) error {
	select {
	case <-a.done:
		return a.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *amqpDriver) newPublisher(ctx context.Context, id int) (*publisher, error) {
	conn, err := d.dial(ctx, fmt.Sprintf("pub-%d", id))
	if err != nil {
		return nil, err
	}
	p := &publisher{d: d, conn: conn, settled: d.opts.Settle == SettleSettled, durable: *d.opts.Durable}
	if p.sess, err = session(ctx, conn); err != nil {
		_ = conn.Close()
		return nil, d.linkErr("open session for", err)
	}
	mode := amqp.SenderSettleModeUnsettled
	if p.settled {
		mode = amqp.SenderSettleModeSettled
	}
	actx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	p.snd, err = p.sess.NewSender(actx, d.address, &amqp.SenderOptions{SettlementMode: mode.Ptr(),
		TargetCapabilities: d.capabilities()})
	if err != nil {
		_ = conn.Close()
		return nil, d.linkErr("attach sender to", err)
	}
	if !p.settled {
		p.slots = make(chan struct{}, maxInFlight)
		p.pending = make(chan *ack, maxInFlight)
		p.done = make(chan struct{})
		go p.watch()
	}
	return p, nil
}

// watch resolves the Acks in send order as the broker's dispositions arrive.
func (p *publisher) watch() {
	defer close(p.done)
	for a := range p.pending {
		state, err := a.receipt.Wait(context.Background()) // returns when the link dies too
		switch s := state.(type) {
		case nil:
			if err == nil {
				err = errors.New("amqp10: no delivery state")
			}
			a.err = fmt.Errorf("amqp10: send to %s: %s", p.d.address, p.d.scrub(err.Error()))
		case *amqp.StateAccepted:
		case *amqp.StateRejected:
			a.err = fmt.Errorf("amqp10: %s rejected the message", p.d.address)
			if s.Error != nil {
				a.err = fmt.Errorf("amqp10: %s rejected the message: %s", p.d.address, s.Error)
			}
		default:
			a.err = fmt.Errorf("amqp10: %s did not accept the message (%T)", p.d.address, state)
		}
		close(a.done)
		<-p.slots
	}
}

// Send writes one transfer. Unsettled: it returns once the transfer is written, with an Ack
// that resolves at the broker's disposition; it blocks while maxInFlight messages are
// unsettled or the broker gives no link credit. Settled: no Ack.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	msg := amqp.NewMessage(m.Value)
	msg.Header = &amqp.MessageHeader{Durable: p.durable}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errPublisherClosed
	}
	if p.settled {
		if err := p.snd.Send(ctx, msg, nil); err != nil {
			return nil, p.d.linkErr("send to", err)
		}
		return nil, nil
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	receipt, err := p.snd.SendWithReceipt(ctx, msg, nil)
	if err != nil {
		<-p.slots
		return nil, p.d.linkErr("send to", err)
	}
	a := &ack{receipt: receipt, done: make(chan struct{})}
	p.pending <- a // never blocks: a slot is held
	return a, nil
}

// CopiesValue: the message is marshalled and copied into frames before Send returns.
func (p *publisher) CopiesValue() bool { return true }

// Flush is a no-op: every Send has written its transfer.
func (p *publisher) Flush(context.Context) error { return nil }

// Close waits (bounded) for outstanding dispositions, then closes the connection; Acks still
// outstanding then fail. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		// A Send blocked on link credit holds mu: closing the connection after closeTimeout
		// releases it.
		t := time.AfterFunc(closeTimeout, func() { _ = p.conn.Close() })
		p.mu.Lock()
		p.closed = true
		if p.pending != nil {
			close(p.pending)
		}
		p.mu.Unlock()
		t.Stop()
		if p.done != nil {
			wait(p.done, closeTimeout)
		}
		closeWith(p.snd.Close)
		_ = p.conn.Close()
		if p.done != nil {
			wait(p.done, closeTimeout)
		}
	})
	return nil
}

// wait waits for done, at most d.
func wait(done <-chan struct{}, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}
