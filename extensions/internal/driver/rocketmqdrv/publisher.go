package rocketmqdrv

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"
	"github.com/apache/rocketmq-client-go/v2/producer"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// NewPublisher starts producer id as its own client instance. The client connects at the
// first send, so the masters are asked once here to report a broker gone since Open.
func (d *rmqDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	if err := d.pingMasters(ctx); err != nil {
		return nil, err
	}
	p, err := rocketmq.NewProducer(
		producer.WithNsResolver(d.resolver()),
		producer.WithGroupName(d.group+"-producer"),
		producer.WithInstanceName(instanceName("p", id)),
		// A message with a key goes to the queue its key hashes to (per-key order, as
		// Kafka's partitioner); others to a random queue.
		producer.WithQueueSelector(producer.NewHashQueueSelector()),
		// The client zips bodies over 4 KiB by default; the benchmark measures the
		// payload as given.
		producer.WithCompressMsgBodyOverHowmuch(math.MaxInt32),
	)
	if err != nil {
		return nil, fmt.Errorf("rocketmq: publisher %d: %w", id, err)
	}
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("rocketmq: publisher %d: %w", id, err)
	}
	if d.opts.PublishBatch > 1 {
		return newBatchPublisher(p, d.cfg.Destination, d.opts), nil
	}
	return &publisher{p: p, topic: d.cfg.Destination, mode: d.opts.Send, slots: make(chan struct{}, d.opts.MaxInFlight)}, nil
}

// publisher sends in the configured mode. The client writes the request to the broker's
// connection before Send returns (all three modes), so the value is not kept.
type publisher struct {
	p         rocketmq.Producer
	topic     string
	mode      string
	slots     chan struct{} // one per unanswered async send (max_in_flight)
	closeOnce sync.Once
}

var (
	_ driver.Publisher   = (*publisher)(nil)
	_ driver.ValueCopier = (*publisher)(nil)
)

func (p *publisher) CopiesValue() bool { return true }

func (p *publisher) message(m driver.Message) *primitive.Message {
	msg := primitive.NewMessage(p.topic, m.Value)
	if m.Key != nil {
		msg.WithShardingKey(string(m.Key))
	}
	return msg
}

func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	msg := p.message(m)
	switch p.mode {
	case sendOneway:
		return nil, p.p.SendOneWay(ctx, msg)
	case sendSync:
		res, err := p.p.SendSync(ctx, msg)
		return driver.Done(resultErr(res, err)), nil
	}
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a := &ack{Pending: driver.NewPending(), release: func() { <-p.slots }}
	// The answer may come after ctx ends (the client bounds it by 3 s itself).
	err := p.p.SendAsync(context.WithoutCancel(ctx), func(_ context.Context, res *primitive.SendResult, err error) {
		a.resolve(resultErr(res, err))
	}, msg)
	if err != nil {
		a.resolve(err)
		return nil, err
	}
	return a, nil
}

// resultErr: a send succeeded only with SEND_OK (not FLUSH_DISK_TIMEOUT and the like).
func resultErr(res *primitive.SendResult, err error) error {
	if err != nil {
		return err
	}
	if res == nil || res.Status != primitive.SendOK {
		return fmt.Errorf("rocketmq: send result %v", res)
	}
	return nil
}

// ack is one async send's answer. The client may call back twice (a timeout racing the
// answer), so only the first resolves it.
type ack struct {
	driver.Pending
	once    sync.Once
	release func() // frees the send's in-flight slot
}

// resolve resolves the Ack with the first answer and frees the slot.
func (a *ack) resolve(err error) {
	a.once.Do(func() {
		a.Resolve(err)
		a.release()
	})
}

func (p *publisher) Flush(context.Context) error { return nil }

// Close shuts the producer's client down (idempotent).
func (p *publisher) Close() error {
	p.closeOnce.Do(func() { shutdownBounded(p.p.Shutdown) })
	return nil
}
