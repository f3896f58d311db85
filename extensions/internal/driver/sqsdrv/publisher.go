package sqsdrv

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// queued bounds the messages one publisher holds for its senders; beyond it Send waits (the
// k6 iteration stays busy and k6 counts dropped iterations: an SQS that does not keep up is
// visible, not hidden in memory).
const queued = 1 << 14

var errPublisherClosed = errors.New("sqs: publisher closed")

// publisher hands messages to send_concurrency sender goroutines through a queue. A sender
// takes what is waiting (up to send_batch messages and max_message_bytes of bodies, after
// batch_linger when that is set) and sends it in one request; every message's Ack resolves
// with the request's answer. SQS has no message key: Message.Key is ignored.
type publisher struct {
	d     *sqsDriver
	url   string
	id    int
	group string // FIFO MessageGroupId

	mu     sync.RWMutex // guards closed against Send; Close takes it to close in
	closed bool
	in     chan *entry
	ctx    context.Context // requests; cancelled when Close gives up waiting
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// entry is one message on its way: its body (base64), FIFO deduplication id, and Ack.
type entry struct {
	body  string
	dedup string
	ack   *driver.Pending // resolved once, when the message's request was answered
}

var (
	_ driver.Publisher   = (*publisher)(nil)
	_ driver.ValueCopier = (*publisher)(nil)
)

func newPublisher(d *sqsDriver, url string, id int) *publisher {
	ctx, cancel := context.WithCancel(context.Background())
	p := &publisher{d: d, url: url, id: id, in: make(chan *entry, queued), ctx: ctx, cancel: cancel}
	if d.opts.FIFO {
		p.group = d.opts.MessageGroupID
		if p.group == "" {
			p.group = "mqbench-" + strconv.Itoa(id)
		}
	}
	for range d.opts.SendConcurrency {
		p.wg.Go(p.sender)
	}
	return p
}

// CopiesValue: Send encodes the value (base64) before it returns.
func (p *publisher) CopiesValue() bool { return true }

func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	e := &entry{body: base64.StdEncoding.EncodeToString(m.Value), ack: new(driver.NewPending())}
	if len(e.body) > p.d.opts.MaxMessageBytes {
		return nil, fmt.Errorf("sqs: message of %d bytes is %d base64, over max_message_bytes %d", len(m.Value), len(e.body), p.d.opts.MaxMessageBytes)
	}
	if p.d.opts.FIFO {
		e.dedup = p.dedupID(m)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return nil, errPublisherClosed
	}
	select {
	case p.in <- e:
		return e.ack, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dedupID names a message for SQS's FIFO deduplication: the run, cell, producer and sequence
// the runner issued it under, the same for every retry of that message and unique in the
// run. A message no run issued is named by its SHA-256: a retry's body is the same.
func (p *publisher) dedupID(m driver.Message) string {
	if !m.ID.Issued {
		s := sha256.Sum256(m.Value)
		return hex.EncodeToString(s[:])
	}
	return fmt.Sprintf("%s-%d-%d-%d", p.d.runTag, m.ID.Cell, m.ID.Producer, m.ID.Seq)
}

// Flush: nothing waits client-side beyond the senders' queue, which they drain on their own.
func (p *publisher) Flush(context.Context) error { return nil }

// Close lets the senders send what is queued (at most closeWait), then fails the rest.
// Idempotent.
func (p *publisher) Close() error {
	p.once.Do(func() {
		p.mu.Lock()
		p.closed = true
		close(p.in)
		p.mu.Unlock()
		done := make(chan struct{})
		go func() { p.wg.Wait(); close(done) }()
		t := time.NewTimer(closeWait)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			p.cancel() // requests in flight fail, and the senders fail what is left
			<-done
		}
		p.cancel()
	})
	return nil
}

// sender sends batches until the queue is closed and drained.
func (p *publisher) sender() {
	max := p.d.opts.SendBatch
	var carry *entry // taken from the queue but over the previous batch's byte limit
	for {
		first := carry
		carry = nil
		if first == nil {
			e, ok := <-p.in
			if !ok {
				return
			}
			first = e
		}
		batch, size := []*entry{first}, len(first.body)
		var linger <-chan time.Time
		var timer *time.Timer
		if max > 1 && p.d.opts.BatchLinger > 0 {
			timer = time.NewTimer(p.d.opts.BatchLinger)
			linger = timer.C
		}
	fill:
		for len(batch) < max {
			var e *entry
			var ok bool
			if linger != nil {
				select {
				case e, ok = <-p.in:
				case <-linger:
					break fill
				}
			} else {
				select {
				case e, ok = <-p.in:
				default:
					break fill
				}
			}
			if !ok {
				break
			}
			if size+len(e.body) > p.d.opts.MaxMessageBytes {
				carry = e
				break
			}
			batch, size = append(batch, e), size+len(e.body)
		}
		if timer != nil {
			timer.Stop()
		}
		p.send(batch)
	}
}

// send sends one batch and resolves its Acks.
func (p *publisher) send(batch []*entry) {
	if p.ctx.Err() != nil {
		for _, e := range batch {
			e.ack.Resolve(errPublisherClosed)
		}
		return
	}
	ctx, cancel := context.WithTimeout(p.ctx, callTimeout)
	defer cancel()
	if len(batch) == 1 {
		e := batch[0]
		in := &sqs.SendMessageInput{QueueUrl: aws.String(p.url), MessageBody: aws.String(e.body)}
		if p.group != "" {
			in.MessageGroupId, in.MessageDeduplicationId = aws.String(p.group), aws.String(e.dedup)
		}
		_, err := p.d.client.SendMessage(ctx, in)
		if err != nil {
			err = p.d.classify("SendMessage", err)
		}
		e.ack.Resolve(err)
		return
	}
	entries := make([]types.SendMessageBatchRequestEntry, len(batch))
	for i, e := range batch {
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(e.body)}
		if p.group != "" {
			entries[i].MessageGroupId, entries[i].MessageDeduplicationId = aws.String(p.group), aws.String(e.dedup)
		}
	}
	out, err := p.d.client.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(p.url), Entries: entries})
	if err != nil {
		err = p.d.classify("SendMessageBatch", err)
		for _, e := range batch {
			e.ack.Resolve(err)
		}
		return
	}
	failed := make(map[string]error, len(out.Failed))
	for _, f := range out.Failed {
		failed[aws.ToString(f.Id)] = fmt.Errorf("sqs: SendMessageBatch entry at %s: %s: %s", p.d.addr, aws.ToString(f.Code), aws.ToString(f.Message))
	}
	for i, e := range batch {
		e.ack.Resolve(failed[strconv.Itoa(i)])
	}
}
