package rocketmqdrv

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/primitive"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// maxBatchBody is the broker's default maxMessageSize (4 MiB), the largest batch it takes;
// batchOverhead is what each message adds to a batch beside its value (its encoded header
// and properties), counted generously.
const (
	maxBatchBody  = 4 * 1024 * 1024
	batchOverhead = 256
)

var errPublisherClosed = errors.New("rocketmq: publisher closed")

// batchPublisher sends batches (publish_batch > 1, send async): Send queues the message in a
// driver.Batcher, whose goroutine hands each batch to SendAsync as one request (the client
// encodes it as one batch message; the broker stores its messages one by one) and the
// broker's one send result resolves every message in it. A batch takes one in-flight slot
// (max_in_flight), waited for by the goroutine, so a slow broker fills the batcher's queue
// and then holds Send. A batch goes to one queue: messages with a key are sent alone, each
// to its key's queue as without batching, so per-key order holds. Values are kept until
// their batch is sent (the publisher does not copy them).
type batchPublisher struct {
	p         rocketmq.Producer
	topic     string
	slots     chan struct{}
	b         *driver.Batcher
	requests  atomic.Int64 // send requests (tests: batching happened)
	closeOnce sync.Once
}

var _ driver.Publisher = (*batchPublisher)(nil)

func newBatchPublisher(p rocketmq.Producer, topic string, o *Options) *batchPublisher {
	bp := &batchPublisher{p: p, topic: topic, slots: make(chan struct{}, o.MaxInFlight)}
	bp.b = driver.NewBatcher(driver.BatchLimits{
		Max:      o.PublishBatch,
		MaxBytes: maxBatchBody - batchOverhead*o.PublishBatch,
		Linger:   o.PublishLinger,
		Queue:    max(1024, 4*o.PublishBatch),
	}, errPublisherClosed, bp.send)
	return bp
}

func (p *batchPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return p.b.Add(ctx, m)
}

// send splits a batch into runs of keyless messages (one request each) and keyed
// messages (one request per message), in order.
func (p *batchPublisher) send(batch []*driver.Queued) {
	start := 0
	for i, q := range batch {
		if q.Key == nil {
			continue
		}
		p.request(batch[start:i])
		p.request(batch[i : i+1])
		start = i + 1
	}
	p.request(batch[start:])
}

// request sends msgs as one SendAsync once a slot is free.
func (p *batchPublisher) request(batch []*driver.Queued) {
	if len(batch) == 0 {
		return
	}
	p.slots <- struct{}{}
	p.requests.Add(1)
	msgs := make([]*primitive.Message, len(batch))
	for i, q := range batch {
		msgs[i] = primitive.NewMessage(p.topic, q.Value)
		if q.Key != nil {
			msgs[i].WithShardingKey(string(bytes.Clone(q.Key)))
		}
	}
	var once sync.Once
	done := func(err error) {
		once.Do(func() { // the client may call back twice (a timeout racing the answer)
			for _, q := range batch {
				q.Value = nil
				q.Resolve(err)
			}
			<-p.slots
		})
	}
	// The answer may come after any context ends (the client bounds it by 3 s itself).
	err := p.p.SendAsync(context.Background(), func(_ context.Context, res *primitive.SendResult, err error) {
		done(resultErr(res, err))
	}, msgs...)
	if err != nil {
		done(err)
	}
}

func (p *batchPublisher) Flush(context.Context) error { return nil }

// Close stops the batcher (what still waits fails), then shuts the client down.
func (p *batchPublisher) Close() error {
	p.closeOnce.Do(func() {
		p.b.Close()
		shutdownBounded(p.p.Shutdown)
	})
	return nil
}
