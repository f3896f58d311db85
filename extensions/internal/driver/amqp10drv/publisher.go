package amqp10drv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/Azure/go-amqp"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var errPublisherClosed = errors.New("amqp10: publisher closed")

// publisher is one producer: one connection with one session and one sender at a time (a
// pubLink). A supervisor goroutine watches the current link; when its connection dies or a
// Send on it fails, the link is dropped (Send then fails at once, saying the connection is
// being re-opened) and a new connection, session and sender are opened with driver.Backoff,
// as rabbitdrv does. Unsettled messages of the dead link fail their Acks: the ledger counts
// them as failed sends, or as delivered if the broker had them after all.
//
// With unsettled sends each link has a watcher goroutine that waits for its messages'
// dispositions in send order and resolves their Acks; slots bounds the unsettled messages of
// the publisher to maxInFlight. Message.Key is not sent.
type publisher struct {
	d       *amqpDriver
	role    string // connection name in the container id
	settled bool
	durable bool

	mu sync.Mutex // serialises Send against the supervisor and Close
	// cur is the current link, nil while the connection is being re-opened. Changed only
	// under mu; atomic so Close can reach it while a Send blocked on link credit holds mu.
	cur    atomic.Pointer[pubLink]
	down   error // what Send returns while cur is nil
	closed bool
	slots  chan struct{} // one token per unsettled message

	reconnects atomic.Int64

	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the supervisor returned
	ctx       context.Context
	cancel    context.CancelFunc // aborts a dial in progress
	closeOnce sync.Once
}

// pubLink is one connection, session and sender. Once broken it stays broken.
type pubLink struct {
	conn    *amqp.Conn
	snd     *amqp.Sender
	born    time.Time
	pending chan *ack     // in send order, to the watcher (unsettled only)
	watched chan struct{} // closed when the watcher returned (unsettled only)

	breakOnce sync.Once
	broken    chan struct{} // closed by fail
	reason    string        // why it broke; written before broken is closed
}

// ack is one unsettled message's Ack, resolved at the broker's disposition.
type ack struct {
	driver.Pending
	receipt amqp.SendReceipt
	then    *driver.Queued // a queued send's own Ack (send_queue), resolved with it
}

// newPublisher opens the first link and starts the supervisor; errors of the first
// connection are returned (the broker is unreachable or refuses: nothing to retry).
func (d *amqpDriver) newPublisher(ctx context.Context, id int) (*publisher, error) {
	p := &publisher{d: d, role: fmt.Sprintf("pub-%d", id), settled: d.opts.Settle == SettleSettled,
		durable: *d.opts.Durable, stop: make(chan struct{}), done: make(chan struct{})}
	if !p.settled {
		p.slots = make(chan struct{}, maxInFlight)
	}
	l, err := p.open(ctx)
	if err != nil {
		return nil, err
	}
	p.cur.Store(l)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.supervise(l)
	return p, nil
}

// open dials a connection and attaches a sender to the destination.
func (p *publisher) open(ctx context.Context) (*pubLink, error) {
	d := p.d
	conn, err := d.dial(ctx, p.role)
	if err != nil {
		return nil, err
	}
	sess, err := session(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, d.linkErr("open session for", err)
	}
	mode := amqp.SenderSettleModeUnsettled
	if p.settled {
		mode = amqp.SenderSettleModeSettled
	}
	actx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	snd, err := sess.NewSender(actx, d.address, &amqp.SenderOptions{SettlementMode: mode.Ptr(),
		TargetCapabilities: d.capabilities()})
	if err != nil {
		_ = conn.Close()
		return nil, d.linkErr("attach sender to", err)
	}
	l := &pubLink{conn: conn, snd: snd, born: time.Now(), broken: make(chan struct{})}
	if !p.settled {
		l.pending = make(chan *ack, maxInFlight)
		l.watched = make(chan struct{})
		go p.watch(l)
	}
	return l, nil
}

// fail marks the link broken (first reason wins) and closes its connection, which also ends
// a Send blocked on link credit and every outstanding receipt.
func (l *pubLink) fail(reason string) {
	l.breakOnce.Do(func() {
		l.reason = reason
		close(l.broken)
		_ = l.conn.Close()
	})
}

// supervise waits for the current link to break, then re-opens it with backoff, until Close.
func (p *publisher) supervise(l *pubLink) {
	defer close(p.done)
	var b driver.Backoff
	for {
		select {
		case <-l.conn.Done():
			reason := "connection closed"
			if err := l.conn.Err(); err != nil {
				reason = p.d.scrub(err.Error())
			}
			l.fail(reason)
		case <-l.broken:
		case <-p.stop:
			return
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return
		}
		p.cur.Store(nil)
		p.down = fmt.Errorf("amqp10: send to %s: connection to %s lost, reconnecting (%s)", p.d.address, p.d.addr, l.reason)
		if l.pending != nil {
			close(l.pending) // under mu: no Send is writing to it
		}
		p.mu.Unlock()
		b.Died(l.born)
		if l = p.reconnect(&b); l == nil {
			return
		}
	}
}

// reconnect opens a new link, paced by b; nil once the publisher is closed.
func (p *publisher) reconnect(b *driver.Backoff) *pubLink {
	for {
		if !b.Sleep(p.stop) {
			return nil
		}
		l, err := p.open(p.ctx)
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			if l.pending != nil {
				close(l.pending)
			}
			p.closeLink(l)
			return nil
		}
		p.cur.Store(l)
		p.mu.Unlock()
		p.reconnects.Add(1)
		return l
	}
}

// watch resolves a link's Acks in send order as the broker's dispositions arrive; when the
// link dies, receipts still outstanding return an error.
func (p *publisher) watch(l *pubLink) {
	defer close(l.watched)
	for a := range l.pending {
		state, err := a.receipt.Wait(context.Background()) // returns when the link dies too
		var out error
		switch s := state.(type) {
		case nil:
			select {
			case <-l.broken:
				out = fmt.Errorf("amqp10: send to %s: connection lost before the broker settled the message (%s)", p.d.address, l.reason)
			default:
				if err == nil {
					err = errors.New("no delivery state")
				}
				out = fmt.Errorf("amqp10: send to %s: %s", p.d.address, p.d.scrub(err.Error()))
			}
		case *amqp.StateAccepted:
		case *amqp.StateRejected:
			out = fmt.Errorf("amqp10: %s rejected the message", p.d.address)
			if s.Error != nil {
				out = fmt.Errorf("amqp10: %s rejected the message: %s", p.d.address, s.Error)
			}
		default:
			out = fmt.Errorf("amqp10: %s did not accept the message (%T)", p.d.address, state)
		}
		a.Resolve(out)
		if a.then != nil {
			a.then.Value = nil
			a.then.Resolve(out)
		}
		<-p.slots
	}
}

// Send writes one transfer. Unsettled: it returns once the transfer is written, with an Ack
// that resolves at the broker's disposition; it blocks while maxInFlight messages are
// unsettled or the broker gives no link credit. Settled: no Ack. While the connection is
// being re-opened Send fails at once.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return p.send(ctx, m, nil)
}

// send is Send; then, when not nil, is resolved with the message's Ack (send_queue).
func (p *publisher) send(ctx context.Context, m driver.Message, then *driver.Queued) (driver.Ack, error) {
	msg := amqp.NewMessage(m.Value)
	msg.Header = &amqp.MessageHeader{Durable: p.durable}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errPublisherClosed
	}
	l := p.cur.Load()
	if l == nil {
		return nil, p.down
	}
	if p.settled {
		if err := l.snd.Send(ctx, msg, nil); err != nil {
			return nil, p.sendErr(ctx, l, err)
		}
		return nil, nil
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	receipt, err := l.snd.SendWithReceipt(ctx, msg, nil)
	if err != nil {
		<-p.slots
		return nil, p.sendErr(ctx, l, err)
	}
	a := &ack{Pending: driver.NewPending(), receipt: receipt, then: then}
	l.pending <- a // never blocks: a slot is held, and pending is closed only under mu
	return a, nil
}

// Reconnects counts the connections opened after the first one.
func (p *publisher) Reconnects() int64 { return p.reconnects.Load() }

// sendErr reports a failed Send; unless the caller's context ended, the link is broken (a
// detached link or dead connection) and the supervisor re-opens it.
func (p *publisher) sendErr(ctx context.Context, l *pubLink, err error) error {
	if ctx.Err() == nil {
		l.fail(p.d.scrub(err.Error()))
	}
	return p.d.linkErr("send to", err)
}

// CopiesValue: the message is marshalled and copied into frames before Send returns.
func (p *publisher) CopiesValue() bool { return true }

// Flush is a no-op: every Send has written its transfer.
func (p *publisher) Flush(context.Context) error { return nil }

// Close stops reconnecting, waits (bounded) for outstanding dispositions, then closes the
// connection; Acks still outstanding then fail. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		close(p.stop)
		p.cancel()
		// A Send blocked on link credit holds mu: closing the connection after closeTimeout
		// releases it.
		t := time.AfterFunc(closeTimeout, func() {
			if l := p.cur.Load(); l != nil {
				l.fail("publisher closed")
			}
		})
		p.mu.Lock()
		p.closed = true
		l := p.cur.Load()
		p.cur.Store(nil)
		if l != nil && l.pending != nil {
			close(l.pending)
		}
		p.mu.Unlock()
		t.Stop()
		wait(p.done, closeTimeout)
		if l != nil {
			p.closeLink(l)
		}
	})
	return nil
}

// closeLink lets the watcher resolve what the broker still settles (bounded), then closes
// the connection, which ends the link: RabbitMQ 3.10's plugin never answers a sender's detach
// (measured: Close waited out its 2 s bound every time). pending must be closed already.
func (p *publisher) closeLink(l *pubLink) {
	if l.watched != nil {
		wait(l.watched, closeTimeout)
	}
	l.fail("publisher closed")
	if l.watched != nil {
		wait(l.watched, closeTimeout)
	}
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
