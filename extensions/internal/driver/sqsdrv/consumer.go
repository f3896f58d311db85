package sqsdrv

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer keeps `receivers` ReceiveMessage long polls waiting on the queue; each hands its
// messages over (one at a time across the consumer: the Delivery is called from one
// goroutine at a time) and queues their receipt handles for the deleter, which deletes them
// with DeleteMessageBatch once delete_delay has passed. A message whose delete fails, or comes
// after its visibility timeout, is delivered again later: at least once.
//
// Close neither cuts a long poll nor drops a receipt: a ReceiveMessage cancelled in flight
// may have taken messages all the same (SQS hands them to a poll whose client is gone), and
// they would stay hidden for the visibility timeout; a delivered message whose receipt is
// dropped comes back as a duplicate. So every delivered message is queued for its delete
// before Close can stop the deleter, and what a poll returns once Close began is not delivered
// but released (visibility 0: the queue hands it out again at once).
type consumer struct {
	d   *sqsDriver
	url string
	id  int

	delCtx   context.Context // deletes; cancelled once Close stops waiting for them
	delStop  context.CancelFunc
	closing  chan struct{} // closed at Close: no new receive; the deleter stops honouring delete_delay
	dels     chan pendingDelete
	settling sync.WaitGroup // delivered messages whose receipts are not yet queued (or deleted)
	delDone  chan struct{}

	deliverMu sync.Mutex
	started   atomic.Bool
	closed    atomic.Bool // set under deliverMu: nothing is delivered after
	closeOnce sync.Once

	receiveErrors atomic.Int64
	deleteErrors  atomic.Int64
	// released counts messages received once Close began and handed back to the queue.
	released atomic.Int64
}

// pendingDelete is one received message awaiting its delete.
type pendingDelete struct {
	handle string
	due    time.Time
}

var _ driver.Consumer = (*consumer)(nil)

func newConsumer(d *sqsDriver, url string, id int) *consumer {
	dctx, dcancel := context.WithCancel(context.Background())
	return &consumer{d: d, url: url, id: id, delCtx: dctx, delStop: dcancel,
		closing: make(chan struct{}), dels: make(chan pendingDelete, 8192), delDone: make(chan struct{})}
}

// Start begins the long polls. The queue exists since Setup and keeps every message until it
// is deleted, so nothing sent before Start is missed.
func (c *consumer) Start(_ context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return errors.New("sqs: consumer closed")
	}
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("sqs: consumer already started")
	}
	go c.deleter()
	for range c.d.opts.Receivers {
		go c.receive(deliver)
	}
	return nil
}

// receive is one long-poll loop, until Close. Errors (an endpoint gone, throttling) are
// retried with a growing pause; the run sees them as messages not received. A poll in flight
// at Close runs to its end (at most wait_time_seconds), after Close returned if need be.
func (c *consumer) receive(deliver driver.Delivery) {
	o := c.d.opts
	in := &sqs.ReceiveMessageInput{
		QueueUrl:            aws.String(c.url),
		MaxNumberOfMessages: int32(o.ReceiveBatch),
		WaitTimeSeconds:     int32(*o.WaitTimeSeconds),
		VisibilityTimeout:   int32(*o.VisibilityTimeout), // 0 is not sent: the queue's own applies
	}
	var buf []byte
	pause := 50 * time.Millisecond
	attempts, retry := 0, false
	for !c.isClosing() {
		if o.FIFO && !retry {
			// A FIFO receive that failed after SQS handed messages out would leave their group
			// locked for the visibility timeout; repeated with the same attempt id, it returns
			// those messages again (SQS keeps the id 5 minutes; ElasticMQ honours it too).
			attempts++
			in.ReceiveRequestAttemptId = aws.String(fmt.Sprintf("%s-%d-%d", c.d.runTag, c.id, attempts))
		}
		// The SDK's own timeout would cut a long poll: the wait plus callTimeout.
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(*o.WaitTimeSeconds)*time.Second+callTimeout)
		out, err := c.d.client.ReceiveMessage(ctx, in, noRetry)
		now := time.Now()
		cancel()
		if err != nil {
			c.receiveErrors.Add(1)
			retry = true
			select {
			case <-time.After(pause):
			case <-c.closing:
				return
			}
			pause = min(2*pause, 2*time.Second)
			continue
		}
		pause, retry = 50*time.Millisecond, false
		if len(out.Messages) == 0 {
			continue
		}
		c.deliverMu.Lock()
		if c.closed.Load() {
			c.deliverMu.Unlock()
			c.release(out.Messages)
			return
		}
		c.settling.Add(1) // before Close can see closed: it waits for these receipts
		handles := make([]string, 0, len(out.Messages))
		for _, m := range out.Messages {
			body := aws.ToString(m.Body)
			buf = buf[:0]
			v, err := base64.StdEncoding.AppendDecode(buf, []byte(body))
			if err != nil {
				v = []byte(body) // a foreign producer's text message: the ledger ignores it
			} else {
				buf = v
			}
			deliver(v, now)
			handles = append(handles, aws.ToString(m.ReceiptHandle))
		}
		c.deliverMu.Unlock()
		c.settle(handles, now.Add(o.DeleteDelay))
		c.settling.Done()
	}
}

// settle deletes delivered messages (FIFO without delete_delay) or queues their receipts for
// the deleter, which reads until Close has waited for every settle.
func (c *consumer) settle(handles []string, due time.Time) {
	if c.d.opts.FIFO && c.d.opts.DeleteDelay == 0 {
		// A FIFO group stays locked until its received messages are deleted; delete
		// before the next receive, as a FIFO consumer does (ElasticMQ does not wake a
		// waiting long poll when a group unlocks: measured 13 s for 2000 messages of one
		// group with deletes queued, ~2 s inline).
		batch := make([]pendingDelete, len(handles))
		for i, h := range handles {
			batch[i] = pendingDelete{handle: h}
		}
		c.delete(batch)
		return
	}
	for _, h := range handles {
		c.dels <- pendingDelete{handle: h, due: due}
	}
}

// release makes messages received once Close began visible again at once
// (ChangeMessageVisibilityBatch to 0), for the run's other consumers; best effort: one that
// stays hidden comes back after the visibility timeout, never delivered twice.
func (c *consumer) release(msgs []types.Message) {
	entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(string(rune('a' + i))), ReceiptHandle: m.ReceiptHandle}
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := c.d.client.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: aws.String(c.url), Entries: entries})
	if err == nil {
		c.released.Add(int64(len(msgs) - len(out.Failed)))
	}
}

// deleter deletes received messages in batches of up to 10, each once its delete_delay has
// passed (all share one delay, so they come due in the order they arrive).
func (c *consumer) deleter() {
	defer close(c.delDone)
	var carry *pendingDelete
	for {
		first := carry
		carry = nil
		if first == nil {
			e, ok := <-c.dels
			if !ok {
				return
			}
			first = &e
		}
		if wait := time.Until(first.due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-c.closing:
				t.Stop()
			}
		}
		batch := []pendingDelete{*first}
	fill:
		for len(batch) < 10 {
			select {
			case e, ok := <-c.dels:
				if !ok {
					break fill
				}
				if e.due.After(time.Now()) && !c.isClosing() {
					carry = &e
					break fill
				}
				batch = append(batch, e)
			default:
				break fill
			}
		}
		c.delete(batch)
	}
}

func (c *consumer) isClosing() bool {
	select {
	case <-c.closing:
		return true
	default:
		return false
	}
}

func (c *consumer) delete(batch []pendingDelete) {
	entries := make([]types.DeleteMessageBatchRequestEntry, len(batch))
	for i, e := range batch {
		entries[i] = types.DeleteMessageBatchRequestEntry{Id: aws.String(string(rune('a' + i))), ReceiptHandle: aws.String(e.handle)}
	}
	ctx, cancel := context.WithTimeout(c.delCtx, callTimeout)
	defer cancel()
	out, err := c.d.client.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(c.url), Entries: entries})
	switch {
	case err != nil:
		c.deleteErrors.Add(int64(len(batch)))
	case len(out.Failed) > 0:
		// A receipt handle from before a redelivery, typically: the message comes again.
		c.deleteErrors.Add(int64(len(out.Failed)))
	}
}

// Close stops delivering, deletes what was delivered (without waiting out delete_delay; at
// most closeWait for the deletes) and returns; long polls in flight end by themselves and
// release what they get (see consumer). Idempotent.
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.deliverMu.Lock()
		c.closed.Store(true)
		c.deliverMu.Unlock()
		close(c.closing)
		if !c.started.Load() {
			c.delStop()
			return
		}
		c.settling.Wait() // prompt: the deleter no longer waits, so queueing does not block
		close(c.dels)
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-c.delDone:
		case <-t.C:
			c.delStop()
			<-c.delDone
		}
		c.delStop()
	})
	return nil
}
