package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// publisher is one connection with one channel. Message.Key is not used: AMQP routes by the
// routing key, which is fixed per run (routing_key).
type publisher struct {
	conn      *amqp.Connection
	ch        *amqp.Channel
	exchange  string
	key       string
	mode      uint8 // delivery mode: amqp.Transient or amqp.Persistent
	confirms  bool
	mandatory bool

	// Why the channel or connection closed, if the broker said so.
	closeReason atomic.Pointer[amqp.Error]

	// mandatory: basic.return bookkeeping, see takeReturn.
	returns  chan amqp.Return
	barrier  chan chan struct{}
	retDone  chan struct{}
	retMu    sync.Mutex
	returned map[uint64]amqp.Return // by publish sequence number

	closeOnce sync.Once
}

func newPublisher(conn *amqp.Connection, ch *amqp.Channel, exchange, key string, mode uint8, confirms, mandatory bool) *publisher {
	p := &publisher{conn: conn, ch: ch, exchange: exchange, key: key, mode: mode, confirms: confirms, mandatory: mandatory}
	notes := ch.NotifyClose(make(chan *amqp.Error, 1))
	go func() {
		for e := range notes {
			if e != nil {
				p.closeReason.Store(e)
			}
		}
	}()
	if mandatory {
		// Unbuffered on purpose: amqp091's reader goroutine hands a basic.return over to
		// watchReturns before it goes on to process the basic.ack that follows it.
		p.returns = ch.NotifyReturn(make(chan amqp.Return))
		p.barrier = make(chan chan struct{})
		p.retDone = make(chan struct{})
		p.returned = map[uint64]amqp.Return{}
		go p.watchReturns()
	}
	return p
}

// watchReturns files every returned message under the sequence number the publisher put in
// its MessageId, and answers barrier requests in between (see takeReturn).
func (p *publisher) watchReturns() {
	defer close(p.retDone)
	for {
		select {
		case r, ok := <-p.returns:
			if !ok {
				return
			}
			if seq, err := strconv.ParseUint(r.MessageId, 10, 64); err == nil {
				p.retMu.Lock()
				p.returned[seq] = r
				p.retMu.Unlock()
			}
		case done := <-p.barrier:
			close(done)
		}
	}
}

// takeReturn reports whether the message with publish sequence number seq was returned.
// Called after its confirm arrived: the broker sends basic.return before basic.ack, and
// amqp091 has handed the return to watchReturns before it resolved the confirm; the barrier
// round trip waits until watchReturns has also filed it.
func (p *publisher) takeReturn(seq uint64) (amqp.Return, bool) {
	done := make(chan struct{})
	select {
	case p.barrier <- done:
		<-done
	case <-p.retDone:
	}
	p.retMu.Lock()
	defer p.retMu.Unlock()
	r, ok := p.returned[seq]
	delete(p.returned, seq)
	return r, ok
}

// Send publishes one message. With confirms it returns an Ack that waits for the broker's
// confirm; without, a nil Ack. The body is written to the socket before Send returns (the
// caller may reuse it). A write that blocks longer than writeTimeout kills the connection.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pub := amqp.Publishing{DeliveryMode: p.mode, Body: m.Value}
	if p.mandatory {
		pub.MessageId = strconv.FormatUint(p.ch.GetNextPublishSeqNo(), 10)
	}
	dc, err := p.ch.PublishWithDeferredConfirm(p.exchange, p.key, p.mandatory, false, pub)
	if err != nil {
		return nil, p.wrap("publish", err)
	}
	if !p.confirms || dc == nil {
		return nil, nil
	}
	return &confirmAck{p: p, dc: dc}, nil
}

// wrap adds the broker's reason for a closed channel or connection to err.
func (p *publisher) wrap(op string, err error) error {
	if r := p.closeReason.Load(); r != nil {
		return fmt.Errorf("rabbitmq: %s: %w (closed: %s)", op, err, r.Error())
	}
	return fmt.Errorf("rabbitmq: %s: %w", op, err)
}

// confirmAck waits for one publisher confirm.
type confirmAck struct {
	p  *publisher
	dc *amqp.DeferredConfirmation
}

var errNack = errors.New("rabbitmq: broker nacked the message (basic.nack)")

func (a *confirmAck) Wait(ctx context.Context) error {
	acked, err := a.dc.WaitContext(ctx)
	if err != nil {
		return err
	}
	if a.p.mandatory {
		if r, returned := a.p.takeReturn(a.dc.DeliveryTag); returned {
			return fmt.Errorf("rabbitmq: message returned as unroutable: %d %s (exchange %q, routing key %q)",
				r.ReplyCode, r.ReplyText, r.Exchange, r.RoutingKey)
		}
	}
	if acked {
		return nil
	}
	if a.p.conn.IsClosed() || a.p.ch.IsClosed() {
		// amqp091 resolves outstanding confirmations negatively when the channel closes.
		return a.p.wrap("confirm", errors.New("channel closed before the broker confirmed the message"))
	}
	return errNack
}

// Flush is a no-op: every publish is written to the socket before Send returns.
func (p *publisher) Flush(context.Context) error { return nil }

// Close closes the connection (bounded against a dead broker); confirms still outstanding
// then fail. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() { closeConn(p.conn) })
	return nil
}
