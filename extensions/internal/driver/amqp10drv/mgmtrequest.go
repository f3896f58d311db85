package amqp10drv

import (
	"context"
	"errors"
	"fmt"
	"time"

	amqp "github.com/Azure/go-amqp"
)

// requestTTL is the lifetime of a management request: a broker that does not answer it (a
// plain queue of that name, not a management endpoint) drops it instead of keeping it.
const requestTTL = 30 * time.Second

// asker sends management requests over the admin connection, one at a time: Artemis's
// management address and ActiveMQ Classic's statistics plugin both answer a message at its
// reply-to address. Its session, its dynamic receiver (a temporary queue, the reply-to) and
// its senders stay open between requests, so a request is one round trip: opening them took
// up to 1.6 s on an Artemis at overload, most of the runner's 2 s for the backlog read at the
// end of a cell. After a failed or abandoned request they are closed and opened again on
// the next one, so a late answer never passes for the next request's.
type asker struct {
	turn chan struct{} // one token: the request under way
	sess *amqp.Session // nil: open on the next request
	rcv  *amqp.Receiver
	snd  map[string]*amqp.Sender // by management address
}

func newAsker() *asker { return &asker{turn: make(chan struct{}, 1)} }

// ask sends req to address and returns the answer: the messages that come back up to the
// first for which last is true (nil: one message). An answer is read to its end, so no part
// of it is left for the next request. ctx bounds the wait for its turn and the request.
func (d *amqpDriver) ask(ctx context.Context, address string, req *amqp.Message, last func(*amqp.Message) bool) ([]*amqp.Message, error) {
	a := d.asker
	select {
	case a.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("management request: waiting for the one under way: %w", ctx.Err())
	}
	defer func() { <-a.turn }()
	m, err := d.askOnce(ctx, a, address, req, last)
	if err != nil && a.sess != nil {
		closeWith(a.sess.Close)
		a.sess, a.rcv, a.snd = nil, nil, nil
	}
	return m, err
}

// askOnce opens what is missing of a's links and makes one request; its turn is held.
func (d *amqpDriver) askOnce(ctx context.Context, a *asker, address string, req *amqp.Message, last func(*amqp.Message) bool) ([]*amqp.Message, error) {
	if a.sess == nil {
		d.mu.Lock()
		conn, closed := d.admin, d.closed
		d.mu.Unlock()
		if closed || conn == nil {
			return nil, errors.New("amqp10: driver closed")
		}
		s, err := conn.NewSession(ctx, nil)
		if err != nil {
			return nil, err
		}
		a.sess, a.snd = s, map[string]*amqp.Sender{}
		if a.rcv, err = s.NewReceiver(ctx, "", &amqp.ReceiverOptions{DynamicAddress: true, Credit: 1}); err != nil {
			return nil, fmt.Errorf("reply address: %w", err)
		}
	}
	snd := a.snd[address]
	if snd == nil {
		var err error
		if snd, err = a.sess.NewSender(ctx, address, nil); err != nil {
			return nil, fmt.Errorf("management address %s: %w", address, err)
		}
		a.snd[address] = snd
	}
	reply := a.rcv.Address()
	if req.Properties == nil {
		req.Properties = &amqp.MessageProperties{}
	}
	req.Properties.ReplyTo = &reply
	req.Header = &amqp.MessageHeader{TTL: requestTTL}
	if err := snd.Send(ctx, req, nil); err != nil {
		return nil, fmt.Errorf("management request: %w", err)
	}
	var answer []*amqp.Message
	for {
		m, err := a.rcv.Receive(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("management answer: %w", err)
		}
		_ = a.rcv.AcceptMessage(ctx, m)
		if answer = append(answer, m); last == nil || last(m) {
			return answer, nil
		}
	}
}
