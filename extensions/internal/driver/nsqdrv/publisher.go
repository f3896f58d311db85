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

// ack is one PUB's answer, delivered on done by go-nsq's router goroutine. Wait may be called
// more than once; the answer is kept.
type ack struct {
	done chan *nsq.ProducerTransaction
	mu   sync.Mutex
	got  bool
	err  error
}

func (a *ack) Wait(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.got {
		return a.err
	}
	select {
	case t := <-a.done:
		a.got, a.err = true, t.Error
		return a.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *publisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	a := &ack{done: make(chan *nsq.ProducerTransaction, 1)}
	if err := p.p.PublishAsync(p.topic, m.Value, a.done); err != nil {
		return nil, err
	}
	return a, nil
}

func (p *publisher) Flush(context.Context) error { return nil }

func (p *publisher) Close() error {
	p.closeOnce.Do(p.p.Stop)
	return nil
}
