package kafkadrv

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// flushOnClose bounds how long Close waits for buffered records before it fails them.
const flushOnClose = 2 * time.Second

var errPublisherClosed = errors.New("kafka: publisher closed")

// publisher is one producer client. Send hands the record to franz-go, which batches it per
// partition and sends it (linger, batch_bytes, compression, max_in_flight); the record's Ack
// resolves in franz-go's promise. Message.Key becomes the record key (keyed records go to a
// partition by hash, unkeyed ones are spread by franz-go's sticky partitioner).
type publisher struct {
	cl        *kgo.Client
	topic     string
	closed    atomic.Bool
	closeOnce sync.Once
}

func newPublisher(cl *kgo.Client, topic string) *publisher {
	return &publisher{cl: cl, topic: topic}
}

// ack is one in-flight record and its outcome. The record is the first field, so the single
// promise function finds the ack from the *kgo.Record franz-go hands back, without a closure
// (an allocation) per message. acks are pooled: Wait returns one to the pool once it handed
// out the outcome.
type ack struct {
	rec   kgo.Record // must stay the first field, see promise
	done  chan error // buffered (1): the promise never blocks
	stamp [1]kgo.RecordHeader
}

// The conversion in promise relies on rec being at offset 0.
var _ [0]struct{} = [unsafe.Offsetof(ack{}.rec)]struct{}{}

var _ driver.Poller = (*ack)(nil)

var ackPool = sync.Pool{New: func() any { return &ack{done: make(chan error, 1)} }}

// promise is called by franz-go once per record: acknowledged (nil), or failed.
func promise(r *kgo.Record, err error) {
	a := (*ack)(unsafe.Pointer(r))
	a.done <- err
}

// Wait returns the broker's verdict on the record, or ctx's error if that comes first (the
// outcome then arrives later and is dropped). Call Wait at most once after it returned the
// outcome: the ack is then reused for another record.
func (a *ack) Wait(ctx context.Context) error {
	select {
	case err := <-a.done:
		a.put()
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Poll takes the outcome if franz-go delivered it already, so the runner waits (with a
// timeout context, a tenth of k6's CPU at 100,000 msg/s in a profile) only for an ack still
// outstanding. A resolved ack goes back to the pool: neither Poll nor Wait is called again.
func (a *ack) Poll() (bool, error) {
	select {
	case err := <-a.done:
		a.put()
		return true, err
	default:
		return false, nil
	}
}

func (a *ack) put() {
	a.rec, a.stamp[0] = kgo.Record{}, kgo.RecordHeader{} // drop the references to the caller's key, value and stamp
	ackPool.Put(a)
}

// Send buffers the record in franz-go and returns its Ack. It blocks only while the client
// holds its maximum of buffered records or bytes (back-pressure from a slow broker), until
// ctx ends. The record's own lifetime is not tied to ctx: only request_timeout fails it.
// franz-go keeps m.Key and m.Value until the Ack resolved; the caller must not modify them
// before.
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	if p.closed.Load() {
		return nil, errPublisherClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := ackPool.Get().(*ack)
	a.rec = kgo.Record{Topic: p.topic, Key: m.Key, Value: m.Value, Context: context.Background()}
	if m.Stamp != nil { // a record header: the pooled ack holds it, no allocation
		a.stamp[0] = kgo.RecordHeader{Key: driver.StampHeader, Value: m.Stamp}
		a.rec.Headers = a.stamp[:]
	}
	p.cl.Produce(ctx, &a.rec, promise)
	return a, nil
}

// Flush waits until every buffered record was acknowledged (or failed), bounded by ctx.
func (p *publisher) Flush(ctx context.Context) error {
	if p.closed.Load() {
		return nil
	}
	return p.cl.Flush(ctx)
}

// Close gives buffered records a moment to be sent, then closes the client; records still
// buffered then fail with kgo.ErrClientClosed (their Acks return it). Idempotent; bounded
// against a dead broker.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		ctx, cancel := context.WithTimeout(context.Background(), flushOnClose)
		_ = p.cl.Flush(ctx)
		cancel()
		closeClient(p.cl)
	})
	return nil
}
