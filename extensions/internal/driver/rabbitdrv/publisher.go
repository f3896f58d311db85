package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// publisher is one producer: one connection with one channel at a time. A supervisor
// goroutine watches the current session; when its connection or channel closes, the session
// is marked dead (Send then fails at once with the reason) and a new connection, channel and
// confirm mode are opened with backoff. Message.Key is not used: AMQP routes by the routing
// key, which is fixed per run (routing_key).
type publisher struct {
	d         *rabbitDriver
	name      string // connection name, shown in the management UI
	exchange  string
	key       string
	mode      uint8 // delivery mode: amqp.Transient or amqp.Persistent
	confirms  bool
	mandatory bool

	// Request-reply (see reply.go): replyTo is every publish's reply-to, and prepare runs on
	// every new session's channel before anything is published on it.
	replyTo string
	prepare func(*amqp.Channel) error

	// byKey: each publish's routing key is the message's key (a consistent-hash exchange,
	// whose bindings' keys are weights); its sequence number when it has none.
	byKey bool

	// stamp is every publish's header table when the scenario stamps in a header; Sends are
	// serial and amqp091 encodes the table before Publish returns, so one map serves them all.
	stamp amqp.Table

	cur atomic.Pointer[pubSession] // never nil; dead while reconnecting

	reconnects atomic.Int64

	mu        sync.Mutex // orders a new session against Close
	closed    bool
	stop      chan struct{} // closed by Close
	done      chan struct{} // closed when the supervisor returned
	ctx       context.Context
	cancel    context.CancelFunc // aborts a dial in progress
	closeOnce sync.Once
}

// pubSession is one connection and its channel. Once dead it stays dead: a reconnect makes a
// new session.
type pubSession struct {
	conn *amqp.Connection
	ch   *amqp.Channel
	born time.Time

	connCloses chan *amqp.Error
	chCloses   chan *amqp.Error

	reason string // why it died; written before dead is set
	err    error  // what Send returns once it died; written before dead is set
	dead   atomic.Bool

	// mandatory: basic.return bookkeeping, see takeReturn.
	returns  chan amqp.Return
	barrier  chan chan struct{}
	retDone  chan struct{}
	retMu    sync.Mutex
	returned map[uint64]amqp.Return // by publish sequence number
}

var errPublisherClosed = errors.New("rabbitmq: publisher closed")

// open dials a connection with one channel, in confirm mode if the publisher uses confirms.
// ctx ending aborts it at any step.
func (p *publisher) open(ctx context.Context) (*pubSession, error) {
	conn, release, err := p.d.dialGuarded(ctx, p.name, true)
	if err != nil {
		return nil, err
	}
	s, err := p.session(conn)
	if !release() && err == nil {
		err = ctx.Err() // the socket was closed under the opening sequence
	}
	if err != nil {
		closeConn(conn)
		return nil, err
	}
	return s, nil
}

func (p *publisher) session(conn *amqp.Connection) (*pubSession, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, fmt.Errorf("rabbitmq: open channel: %w", err)
	}
	if p.prepare != nil {
		if err := p.prepare(ch); err != nil {
			return nil, err
		}
	}
	if p.confirms {
		if err := ch.Confirm(false); err != nil {
			return nil, fmt.Errorf("rabbitmq: confirm mode: %w", err)
		}
	}
	s := &pubSession{
		conn:       conn,
		ch:         ch,
		born:       time.Now(),
		connCloses: conn.NotifyClose(make(chan *amqp.Error, 1)),
		chCloses:   ch.NotifyClose(make(chan *amqp.Error, 1)),
	}
	if p.mandatory {
		// Unbuffered on purpose: amqp091's reader goroutine hands a basic.return over to
		// watchReturns before it goes on to process the basic.ack that follows it.
		s.returns = ch.NotifyReturn(make(chan amqp.Return))
		s.barrier = make(chan chan struct{})
		s.retDone = make(chan struct{})
		s.returned = map[uint64]amqp.Return{}
		go s.watchReturns()
	}
	return s, nil
}

// newPublisher opens publisher id.
func (d *rabbitDriver) newPublisher(ctx context.Context, id int) (*publisher, error) {
	p := d.publisherNamed(fmt.Sprintf("mqbench-pub-%d", id))
	if err := p.start(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// publisherNamed returns a publisher with the run's settings, not yet connected.
func (d *rabbitDriver) publisherNamed(name string) *publisher {
	o := d.opts
	mode := amqp.Transient
	if *o.Persistent {
		mode = amqp.Persistent
	}
	p := &publisher{
		d:         d,
		name:      name,
		exchange:  d.exchange,
		key:       d.key,
		byKey:     d.exchangeType == consistentHash,
		mode:      mode,
		confirms:  *o.Confirms,
		mandatory: o.Mandatory,
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
	return p
}

// start opens the first session and starts the supervisor; errors of the first connection
// are returned (the broker is unreachable or refuses: nothing to retry), and the publisher
// must not be used then.
func (p *publisher) start(ctx context.Context) error {
	s, err := p.open(ctx)
	if err != nil {
		return err
	}
	p.cur.Store(s)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.supervise(s)
	return nil
}

// supervise waits for the current session to die, then reconnects with backoff, until Close.
func (p *publisher) supervise(s *pubSession) {
	defer close(p.done)
	var b driver.Backoff
	for {
		var e *amqp.Error
		select {
		case e = <-s.connCloses:
		case e = <-s.chCloses:
		case <-p.stop:
			return
		}
		s.kill(p.d, e)
		closeConn(s.conn) // a channel-level error leaves the connection open: drop it too
		b.Died(s.born)
		if s = p.reconnect(&b); s == nil {
			return
		}
	}
}

// reconnect opens a new session, paced by b.
// It returns nil once the publisher is closed.
func (p *publisher) reconnect(b *driver.Backoff) *pubSession {
	for {
		if !b.Sleep(p.stop) {
			return nil
		}
		s, err := p.open(p.ctx)
		if err != nil {
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			closeConn(s.conn)
			return nil
		}
		p.cur.Store(s)
		p.mu.Unlock()
		p.reconnects.Add(1)
		return s
	}
}

// kill marks the session dead with the broker's reason (nil: closed without one).
func (s *pubSession) kill(d *rabbitDriver, e *amqp.Error) {
	if s.dead.Load() {
		return
	}
	s.reason = "connection closed"
	if e != nil {
		s.reason = d.scrub(e.Error())
	}
	s.reason = fmt.Sprintf("connection to %s lost, reconnecting (%s)", d.addr, s.reason)
	s.err = errors.New("rabbitmq: publish: " + s.reason)
	s.dead.Store(true)
}

// watchReturns files every returned message under the sequence number the publisher put in
// its MessageId, and answers barrier requests in between (see takeReturn).
func (s *pubSession) watchReturns() {
	defer close(s.retDone)
	for {
		select {
		case r, ok := <-s.returns:
			if !ok {
				return
			}
			if seq, err := strconv.ParseUint(r.MessageId, 10, 64); err == nil {
				s.retMu.Lock()
				s.returned[seq] = r
				s.retMu.Unlock()
			}
		case done := <-s.barrier:
			close(done)
		}
	}
}

// takeReturn reports whether the message with publish sequence number seq was returned.
// Called after its confirm arrived: the broker sends basic.return before basic.ack, and
// amqp091 has handed the return to watchReturns before it resolved the confirm; the barrier
// round trip waits until watchReturns has also filed it.
func (s *pubSession) takeReturn(seq uint64) (amqp.Return, bool) {
	done := make(chan struct{})
	select {
	case s.barrier <- done:
		<-done
	case <-s.retDone:
	}
	s.retMu.Lock()
	defer s.retMu.Unlock()
	r, ok := s.returned[seq]
	delete(s.returned, seq)
	return r, ok
}

// Send publishes one message. With confirms it returns an Ack that waits for the broker's
// confirm; without, a nil Ack. The body is copied before Send returns (the caller may reuse
// it) and leaves in the connection's next gathered write (batchConn); a socket write that
// blocks longer than writeTimeout kills the connection.
// While the connection is down (being re-opened) Send fails at once.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := p.cur.Load()
	if s.dead.Load() {
		if p.isClosed() {
			return nil, errPublisherClosed
		}
		return nil, s.err
	}
	pub := amqp.Publishing{DeliveryMode: p.mode, Body: m.Value, ReplyTo: p.replyTo}
	if m.Stamp != nil {
		if p.stamp == nil {
			p.stamp = amqp.Table{}
		}
		p.stamp[driver.StampHeader] = m.Stamp
		pub.Headers = p.stamp
	}
	if p.mandatory {
		pub.MessageId = strconv.FormatUint(s.ch.GetNextPublishSeqNo(), 10)
	}
	key := p.key
	if p.byKey {
		key = string(m.Key)
		if m.Key == nil {
			key = strconv.FormatUint(m.ID.Seq, 10)
		}
	}
	dc, err := s.ch.PublishWithDeferredConfirm(p.exchange, key, p.mandatory, false, pub)
	if err != nil {
		if s.dead.Load() {
			return nil, s.err
		}
		return nil, fmt.Errorf("rabbitmq: publish: %w", err)
	}
	if !p.confirms || dc == nil {
		return nil, nil
	}
	return &confirmAck{s: s, mandatory: p.mandatory, dc: dc}, nil
}

func (p *publisher) isClosed() bool {
	select {
	case <-p.stop:
		return true
	default:
		return false
	}
}

// Reconnects counts the sessions opened after the first one.
func (p *publisher) Reconnects() int64 { return p.reconnects.Load() }

// confirmAck waits for one publisher confirm.
type confirmAck struct {
	s         *pubSession
	mandatory bool
	dc        *amqp.DeferredConfirmation
}

var errNack = errors.New("rabbitmq: broker nacked the message (basic.nack)")

func (a *confirmAck) Wait(ctx context.Context) error {
	acked, err := a.dc.WaitContext(ctx)
	if err != nil {
		return err
	}
	if a.mandatory {
		if r, returned := a.s.takeReturn(a.dc.DeliveryTag); returned {
			return fmt.Errorf("rabbitmq: message returned as unroutable: %d %s (exchange %q, routing key %q)",
				r.ReplyCode, r.ReplyText, r.Exchange, r.RoutingKey)
		}
	}
	if acked {
		return nil
	}
	if a.s.conn.IsClosed() || a.s.ch.IsClosed() {
		// amqp091 resolves outstanding confirmations negatively when the channel closes.
		if a.s.dead.Load() {
			return errors.New("rabbitmq: confirm: channel closed before the broker confirmed the message; " + a.s.reason)
		}
		return errors.New("rabbitmq: confirm: channel closed before the broker confirmed the message")
	}
	return errNack
}

// Flush is a no-op: Send hands every publish to the connection's writer, which writes it
// without waiting (and before Close's handshake).
func (p *publisher) Flush(context.Context) error { return nil }

// Close stops reconnecting and closes the connection (bounded against a dead broker);
// confirms still outstanding then fail. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.stop)
		p.cancel()
		s := p.cur.Load()
		p.mu.Unlock()
		closeConn(s.conn)
		waitDone(p.done)
	})
	return nil
}
