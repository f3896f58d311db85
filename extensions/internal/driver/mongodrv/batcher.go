package mongodrv

import (
	"context"
	"errors"
	"sync"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// errPublisherClosed fails the sends still queued when a batching publisher closes.
var errPublisherClosed = errors.New("mongodb: publisher closed before the insert")

// batchPublisher (insert_batch > 1) is group commit: Send queues the message and returns; one
// goroutine per publisher inserts everything queued (up to insert_batch documents, one
// ordered insertMany) as soon as the previous insert was acknowledged. A message waits at
// most for the insert in flight and its own: nothing is held back for a batch to fill, so at
// low rates batches have one document and at high rates they grow. Publish latency is the
// time from Send to the acknowledgement of the insert that carried the message. The value is
// kept until then (no ValueCopier).
type batchPublisher struct {
	d    *mongoDriver
	c    *mongo.Client
	coll *mongo.Collection
	max  int

	mu      sync.Mutex
	queue   []queued
	closed  bool
	kick    chan struct{} // buffered 1: something was queued
	stop    chan struct{}
	done    chan struct{}
	idle    *sync.Cond // signalled when the queue is empty and no insert is in flight
	working bool

	closeOnce sync.Once
}

var _ driver.Publisher = (*batchPublisher)(nil)

// queued is one message and its Ack, which the insert carrying the message resolves.
type queued struct {
	doc message
	ack *driver.Pending
}

func newBatchPublisher(d *mongoDriver, c *mongo.Client, coll *mongo.Collection) *batchPublisher {
	p := &batchPublisher{d: d, c: c, coll: coll, max: d.opts.InsertBatch,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	p.idle = sync.NewCond(&p.mu)
	go p.run()
	return p
}

func (p *batchPublisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	a := driver.NewPending()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPublisherClosed
	}
	p.queue = append(p.queue, queued{doc: newMessage(m), ack: &a})
	p.mu.Unlock()
	select {
	case p.kick <- struct{}{}:
	default:
	}
	return &a, nil
}

// run inserts what is queued until Close; then fails what is left.
func (p *batchPublisher) run() {
	defer close(p.done)
	docs := make([]any, 0, p.max)
	for {
		select {
		case <-p.stop:
			p.fail(errPublisherClosed)
			return
		case <-p.kick:
		}
		for {
			p.mu.Lock()
			n := min(len(p.queue), p.max)
			if n == 0 {
				p.working = false
				p.idle.Broadcast()
				p.mu.Unlock()
				break
			}
			batch := append([]queued(nil), p.queue[:n]...)
			p.queue = p.queue[n:]
			p.working = true
			p.mu.Unlock()
			docs = docs[:0]
			for _, q := range batch {
				docs = append(docs, q.doc)
			}
			ctx, cancel := context.WithTimeout(context.Background(), roundTimeout)
			_, err := p.coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(true))
			cancel()
			p.resolve(batch, err)
		}
	}
}

// resolve settles one insert's acks. An ordered insertMany stops at its first failing
// document: the ones before it were inserted, it and those after were not.
func (p *batchPublisher) resolve(batch []queued, err error) {
	firstBad := len(batch)
	if err != nil {
		firstBad = 0
		var bwe mongo.BulkWriteException
		if errors.As(err, &bwe) && bwe.WriteConcernError == nil && len(bwe.WriteErrors) > 0 {
			firstBad = bwe.WriteErrors[0].Index
		}
		err = p.d.wrap("insert", err)
	}
	for i, q := range batch {
		if i < firstBad {
			q.ack.Resolve(nil)
		} else {
			q.ack.Resolve(err)
		}
	}
}

func (p *batchPublisher) fail(err error) {
	p.mu.Lock()
	q := p.queue
	p.queue = nil
	p.working = false
	p.idle.Broadcast()
	p.mu.Unlock()
	for _, m := range q {
		m.ack.Resolve(err)
	}
}

// Flush waits until everything sent was inserted (or ctx ends).
func (p *batchPublisher) Flush(ctx context.Context) error {
	stopWake := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.idle.Broadcast()
		p.mu.Unlock()
	})
	defer stopWake()
	p.mu.Lock()
	defer p.mu.Unlock()
	for (len(p.queue) > 0 || p.working) && ctx.Err() == nil {
		p.idle.Wait()
	}
	return ctx.Err()
}

// Close lets the queued messages be inserted (5 s at most), then fails the rest and
// disconnects. Idempotent.
func (p *batchPublisher) Close() error {
	p.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), closeWait)
		defer cancel()
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		_ = p.Flush(ctx)
		close(p.stop)
		<-p.done
		_ = p.c.Disconnect(ctx)
	})
	return nil
}
