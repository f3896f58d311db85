package nsqdrv

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// maxBody is nsqd's default --max-body-size: the largest MPUB body (a 4-byte count, then
// each message's 4-byte length and bytes).
const maxBody = 5 * 1024 * 1024

var errPublisherClosed = errors.New("nsq: publisher closed")

// batchPublisher sends MPUB batches (publish_batch > 1): Send queues the message in a
// driver.Batcher, whose goroutine hands each batch to go-nsq's MultiPublishAsync (a batch of
// one as PUB) without waiting for the answer, so batches are pipelined on the connection
// like single PUBs; nsqd's one OK for the batch resolves every message in it. The values are
// kept until then (go-nsq writes them after the call returns).
type batchPublisher struct {
	p         *nsq.Producer
	topic     string
	b         *driver.Batcher
	answers   chan *nsq.ProducerTransaction // every batch's answer, in order
	resolved  chan struct{}                 // closed when the resolver has ended
	requests  atomic.Int64                  // PUBs and MPUBs sent (tests: batching happened)
	closeOnce sync.Once
}

var _ driver.Publisher = (*batchPublisher)(nil)

func newBatchPublisher(p *nsq.Producer, topic string, o *Options) *batchPublisher {
	bp := &batchPublisher{p: p, topic: topic, answers: make(chan *nsq.ProducerTransaction, 64), resolved: make(chan struct{})}
	bp.b = driver.NewBatcher(driver.BatchLimits{
		Max:      o.PublishBatch,
		MaxBytes: maxBody - 4 - 4*o.PublishBatch,
		Linger:   o.PublishLinger,
		Queue:    max(1024, 4*o.PublishBatch),
	}, errPublisherClosed, bp.send)
	go bp.resolve()
	return bp
}

func (p *batchPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return p.b.Add(ctx, m)
}

// send hands one batch to go-nsq; its answer arrives on p.answers with the batch as the
// transaction's argument.
func (p *batchPublisher) send(batch []*driver.Queued) {
	var err error
	p.requests.Add(1)
	if len(batch) == 1 {
		err = p.p.PublishAsync(p.topic, batch[0].Value, p.answers, batch)
	} else {
		bodies := make([][]byte, len(batch))
		for i, q := range batch {
			bodies[i] = q.Value
		}
		err = p.p.MultiPublishAsync(p.topic, bodies, p.answers, batch)
	}
	if err != nil {
		resolveAll(batch, err)
	}
}

// resolve resolves each batch's messages with its answer until Close.
func (p *batchPublisher) resolve() {
	defer close(p.resolved)
	for t := range p.answers {
		resolveAll(t.Args[0].([]*driver.Queued), t.Error)
	}
}

func resolveAll(batch []*driver.Queued, err error) {
	for _, q := range batch {
		q.Value = nil
		q.Resolve(err)
	}
}

func (p *batchPublisher) Flush(context.Context) error { return nil }

// Close stops the batcher (what still waits fails), then the producer, which answers every
// MPUB still unanswered (with an error when nsqd has not), then ends the resolver.
func (p *batchPublisher) Close() error {
	p.closeOnce.Do(func() {
		p.b.Close()
		p.p.Stop()
		close(p.answers)
		<-p.resolved
	})
	return nil
}
