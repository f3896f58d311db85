package amqp10drv

import (
	"context"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// queuedPublisher is a publisher with send_queue: Send queues the message in a
// driver.Batcher (batches of one: AMQP 1.0 has no batch transfer) and returns its Ack at
// once; the batcher's goroutine writes each transfer through the publisher, whose watcher
// resolves the Ack at the broker's disposition. Writing stays serial and in Send order
// (go-amqp writes one transfer at a time per link); what changes is that the generator's
// iteration no longer waits for the write, so a write delayed by the machine or by link
// credit costs queue time, counted in the message's publish latency, instead of a dropped
// tick. The value is kept until the transfer is written.
type queuedPublisher struct {
	p    *publisher
	b    *driver.Batcher
	once sync.Once
}

var _ driver.Publisher = (*queuedPublisher)(nil)

func newQueuedPublisher(p *publisher, queue int) *queuedPublisher {
	q := &queuedPublisher{p: p}
	q.b = driver.NewBatcher(driver.BatchLimits{Max: 1, Queue: queue}, errPublisherClosed, q.write)
	return q
}

func (q *queuedPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return q.b.Add(ctx, m)
}

// write sends each queued message; its Ack resolves with the disposition (through the
// publisher's watcher), or now when the send failed.
func (q *queuedPublisher) write(batch []*driver.Queued) {
	for _, m := range batch {
		// The publisher's context: the transfer may wait for link credit until Close.
		if _, err := q.p.send(q.p.ctx, driver.Message{Key: m.Key, Value: m.Value}, m); err != nil {
			m.Value = nil
			m.Resolve(err)
		}
	}
}

// Reconnects counts the connections opened after the first one.
func (q *queuedPublisher) Reconnects() int64 { return q.p.Reconnects() }

func (q *queuedPublisher) Flush(ctx context.Context) error { return q.p.Flush(ctx) }

// Close fails what still waits in the queue, then closes the publisher (which waits,
// bounded, for the dispositions of what was written).
func (q *queuedPublisher) Close() error {
	q.once.Do(func() {
		// A write waiting for link credit holds the batcher: cancelling the publisher's
		// context after closeTimeout ends it.
		t := time.AfterFunc(closeTimeout, q.p.cancel)
		q.b.Close()
		t.Stop()
		_ = q.p.Close()
	})
	return nil
}
