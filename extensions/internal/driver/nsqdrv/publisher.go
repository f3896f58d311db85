package nsqdrv

import (
	"context"
	"sync"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// publisher sends PUB through go-nsq's PublishAsync: the producer's one connection writes the
// commands in the order Send was called, and nsqd answers each with OK (or an error) in that
// order; the answer resolves the message's Ack. NSQ has no message key: Message.Key is
// ignored. go-nsq writes the body after Send returns, so the value is kept until the Ack.
type publisher struct {
	p         *nsq.Producer
	topic     string
	closeOnce sync.Once
}

var _ driver.Publisher = (*publisher)(nil)

// Send's Ack is the PUB's answer, sent on the Ack's channel by go-nsq's router goroutine.
func (p *publisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	a := driver.NewChanAck(transactionErr)
	if err := p.p.PublishAsync(p.topic, m.Value, a.C); err != nil {
		return nil, err
	}
	return a, nil
}

func transactionErr(t *nsq.ProducerTransaction) error { return t.Error }

func (p *publisher) Flush(context.Context) error { return nil }

func (p *publisher) Close() error {
	p.closeOnce.Do(p.p.Stop)
	return nil
}
