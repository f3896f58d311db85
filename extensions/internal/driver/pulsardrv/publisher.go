package pulsardrv

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/pulsar-client-go/pulsar"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.Publisher = (*publisher)(nil)

// publisher is one producer on its own client (connection). Send hands the message to
// SendAsync; the broker's send receipt, or the send's failure (send_timeout, a closed
// producer), resolves its Ack from the client's callback. The client writes the value after
// Send returns (batching), so it is kept until the Ack.
type publisher struct {
	c         pulsar.Client
	p         pulsar.Producer
	closeOnce sync.Once
}

// NewPublisher opens producer id on its own client; the producer is registered with the
// broker here (a lookup and a PRODUCER command), so a broker gone since Open is reported now.
func (d *pulsarDriver) NewPublisher(_ context.Context, id int) (driver.Publisher, error) {
	c, err := d.newClient()
	if err != nil {
		return nil, err
	}
	o := d.opts
	po := pulsar.ProducerOptions{
		Topic:                   d.topic.String(),
		SendTimeout:             o.SendTimeout,
		MaxPendingMessages:      o.MaxPendingMessages,
		DisableBatching:         !*o.Batching,
		BatchingMaxPublishDelay: o.BatchDelay,
		BatchingMaxMessages:     uint(o.BatchMaxMessages),
		BatchingMaxSize:         uint(o.BatchMaxBytes),
		BackOffPolicyFunc:       reconnectBackoff,
	}
	if o.SubscriptionType == "key_shared" {
		// One batch per key, so the broker can hand each key's messages to its consumer:
		// a mixed batch would go to one consumer whole.
		po.BatcherBuilderType = pulsar.KeyBasedBatchBuilder
	}
	p, err := c.CreateProducer(po)
	if err != nil {
		c.Close()
		return nil, d.connectError(fmt.Sprintf("producer %d", id), err)
	}
	return &publisher{c: c, p: p}, nil
}

// Send's Ack is the message's receipt (or failure), sent on the Ack's channel by the client's
// callback.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	a := driver.NewChanAck(func(err error) error { return err })
	msg := &pulsar.ProducerMessage{Payload: m.Value}
	if m.Key != nil {
		msg.Key = string(m.Key)
	}
	p.p.SendAsync(ctx, msg, func(_ pulsar.MessageID, _ *pulsar.ProducerMessage, err error) {
		a.C <- err
	})
	return a, nil
}

// Flush sends the batch being filled now instead of after batch_delay.
func (p *publisher) Flush(ctx context.Context) error { return p.p.FlushWithCtx(ctx) }

// Close waits for the receipts of what was sent (at most the client's operation timeout
// against a dead broker), then closes the producer and its client. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		p.p.Close()
		p.c.Close()
	})
	return nil
}
