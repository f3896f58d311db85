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

// ask sends one management request to address over the admin connection and returns the
// answer: a dynamic receiver (a temporary queue) for it, named as the request's reply-to,
// and a sender to the management address, on a session of their own. Artemis's management
// address and ActiveMQ Classic's statistics plugin both answer this way; ctx bounds it.
func (d *amqpDriver) ask(ctx context.Context, address string, req *amqp.Message) (*amqp.Message, error) {
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
	defer closeWith(s.Close)
	rcv, err := s.NewReceiver(ctx, "", &amqp.ReceiverOptions{DynamicAddress: true, Credit: 1})
	if err != nil {
		return nil, fmt.Errorf("reply address: %w", err)
	}
	defer closeWith(rcv.Close)
	snd, err := s.NewSender(ctx, address, nil)
	if err != nil {
		return nil, fmt.Errorf("management address %s: %w", address, err)
	}
	defer closeWith(snd.Close)
	reply := rcv.Address()
	if req.Properties == nil {
		req.Properties = &amqp.MessageProperties{}
	}
	req.Properties.ReplyTo = &reply
	req.Header = &amqp.MessageHeader{TTL: requestTTL}
	if err := snd.Send(ctx, req, nil); err != nil {
		return nil, fmt.Errorf("management request: %w", err)
	}
	m, err := rcv.Receive(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("management answer: %w", err)
	}
	_ = rcv.AcceptMessage(ctx, m)
	return m, nil
}
