package nsqdrv

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// maxBody is nsqd's default --max-body-size: the largest MPUB body (a 4-byte count, then
// each message's 4-byte length and bytes).
const maxBody = 5 * 1024 * 1024

var (
	errPublisherClosed = errors.New("nsq: publisher closed")
	errConnClosed      = errors.New("nsq: connection closed before nsqd answered")
)

// batchPublisher sends MPUB batches (publish_batch > 1): Send queues the message in a
// driver.Batcher, whose goroutine writes each batch as one MPUB (a batch of one as PUB) on the
// publisher's go-nsq connection without waiting for the answer, so batches are pipelined;
// nsqd answers each in order with OK (or an error), which resolves every message in it. The
// body is built in one buffer the goroutine reuses: go-nsq's Producer copies every batch into
// a fresh body and hands it to a router goroutine, a fifth of the generator's CPU at 280,000
// msg/s. A connection that fails fails its unanswered batches; the next batch re-connects.
type batchPublisher struct {
	d        *nsqDriver
	topic    []byte
	b        *driver.Batcher
	requests atomic.Int64 // PUBs and MPUBs written (tests: batching happened)
	once     sync.Once

	body []byte // the batcher goroutine's: the MPUB being written (reused)

	mu   sync.Mutex
	link *link // nil: not connected (the next batch connects)
}

// link is one connection and the batches it carries that nsqd has not answered yet, oldest
// first. Its delegate is go-nsq's read loop's: answers, failures and the close arrive there.
type link struct {
	p       *batchPublisher
	conn    *nsq.Conn
	waiting [][]*driver.Queued // guarded by p.mu
	ioErr   error              // why it failed, when a read or write did (guarded by p.mu)
	closed  chan struct{}      // closed by OnClose
}

var _ driver.Publisher = (*batchPublisher)(nil)

// newBatchPublisher connects now, so that an nsqd gone since Open is reported here.
func newBatchPublisher(d *nsqDriver) (*batchPublisher, error) {
	p := &batchPublisher{d: d, topic: []byte(d.cfg.Destination)}
	l, err := p.connect()
	if err != nil {
		return nil, err
	}
	p.link = l
	p.b = driver.NewBatcher(driver.BatchLimits{
		Max:      d.opts.PublishBatch,
		MaxBytes: maxBody - 4 - 4*d.opts.PublishBatch,
		Linger:   d.opts.PublishLinger,
		Queue:    max(1024, 4*d.opts.PublishBatch),
	}, errPublisherClosed, p.send)
	return p, nil
}

// connect opens a connection (IDENTIFY, TLS and AUTH as the run's configuration says).
func (p *batchPublisher) connect() (*link, error) {
	l := &link{p: p, closed: make(chan struct{})}
	l.conn = nsq.NewConn(p.d.addr, p.d.config(), (*linkEvents)(l))
	l.conn.SetLogger(quiet, nsq.LogLevelError, "")
	if _, err := l.conn.Connect(); err != nil {
		return nil, p.d.connectError(err, p.d.addr)
	}
	return l, nil
}

func (p *batchPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return p.b.Add(ctx, m)
}

// send writes one batch (the batcher's goroutine); its answer resolves it later.
func (p *batchPublisher) send(batch []*driver.Queued) {
	p.mu.Lock()
	l := p.link
	p.mu.Unlock()
	if l == nil {
		var err error
		if l, err = p.connect(); err != nil {
			resolveAll(batch, err)
			return
		}
		p.mu.Lock()
		p.link = l
		p.mu.Unlock()
	}
	cmd := p.command(batch)
	p.mu.Lock()
	if p.link != l { // forgotten since (an nsqd error, or closed): its batches fail
		p.mu.Unlock()
		resolveAll(batch, errConnClosed)
		return
	}
	l.waiting = append(l.waiting, batch) // before the write: the answer may come at once
	p.mu.Unlock()
	p.requests.Add(1)
	// A failed write closes the connection (OnIOError), whose OnClose fails the batch.
	_ = l.conn.WriteCommand(cmd)
}

// command is the batch's PUB or MPUB, its MPUB body in p.body.
func (p *batchPublisher) command(batch []*driver.Queued) *nsq.Command {
	if len(batch) == 1 {
		return nsq.Publish(p.d.cfg.Destination, batch[0].Value)
	}
	b := binary.BigEndian.AppendUint32(p.body[:0], uint32(len(batch)))
	for _, q := range batch {
		b = binary.BigEndian.AppendUint32(b, uint32(len(q.Value)))
		b = append(b, q.Value...)
	}
	p.body = b
	return &nsq.Command{Name: []byte("MPUB"), Params: [][]byte{p.topic}, Body: b}
}

// answer resolves l's oldest batch with err (nil: OK).
func (l *link) answer(err error) {
	l.p.mu.Lock()
	if len(l.waiting) == 0 {
		l.p.mu.Unlock()
		return
	}
	batch := l.waiting[0]
	l.waiting[0] = nil
	l.waiting = l.waiting[1:]
	l.p.mu.Unlock()
	resolveAll(batch, err)
}

// forget stops l carrying new batches: the next one connects anew. p.mu is held.
func (l *link) forget() {
	if l.p.link == l {
		l.p.link = nil
	}
}

// fail forgets l and fails what it carries (with the read or write error that ended it, if
// one did).
func (l *link) fail() {
	l.p.mu.Lock()
	err := errConnClosed
	if l.ioErr != nil {
		err = fmt.Errorf("%w: %v", errConnClosed, l.ioErr)
	}
	waiting := l.waiting
	l.waiting = nil
	l.forget()
	l.p.mu.Unlock()
	for _, batch := range waiting {
		resolveAll(batch, err)
	}
}

func resolveAll(batch []*driver.Queued, err error) {
	for _, q := range batch {
		q.Value = nil
		q.Resolve(err)
	}
}

func (p *batchPublisher) Flush(context.Context) error { return nil }

// Close stops the batcher (what still waits fails), then closes the connection, which fails
// every batch nsqd has not answered. Idempotent.
func (p *batchPublisher) Close() error {
	p.once.Do(func() {
		p.b.Close()
		p.mu.Lock()
		l := p.link
		p.mu.Unlock()
		if l != nil {
			_ = l.conn.Close()
			<-l.closed
		}
	})
	return nil
}

// linkEvents is a link as go-nsq's nsq.ConnDelegate (called on the connection's read loop).
type linkEvents link

var _ nsq.ConnDelegate = (*linkEvents)(nil)

func (e *linkEvents) OnResponse(_ *nsq.Conn, data []byte) {
	if string(data) == "OK" {
		(*link)(e).answer(nil)
	}
}

// OnError answers the oldest batch with nsqd's error. Apart from a failed publish, nsqd
// closes the connection after an error: the next batch goes on a new one, not this one.
// (Forgotten before the answer: a Send the answer lets go must not find it.)
func (e *linkEvents) OnError(c *nsq.Conn, data []byte) {
	fatal := !bytes.HasPrefix(data, []byte("E_PUB_FAILED")) && !bytes.HasPrefix(data, []byte("E_MPUB_FAILED"))
	if fatal {
		e.p.mu.Lock()
		(*link)(e).forget()
		e.p.mu.Unlock()
	}
	(*link)(e).answer(fmt.Errorf("nsq: %s", data))
	if fatal {
		_ = c.Close()
	}
}

func (e *linkEvents) OnIOError(c *nsq.Conn, err error) {
	e.p.mu.Lock()
	if e.ioErr == nil {
		e.ioErr = err
	}
	e.p.mu.Unlock()
	_ = c.Close()
}

func (e *linkEvents) OnClose(*nsq.Conn) {
	(*link)(e).fail()
	close(e.closed)
}

func (e *linkEvents) OnMessage(*nsq.Conn, *nsq.Message)         {}
func (e *linkEvents) OnMessageFinished(*nsq.Conn, *nsq.Message) {}
func (e *linkEvents) OnMessageRequeued(*nsq.Conn, *nsq.Message) {}
func (e *linkEvents) OnBackoff(*nsq.Conn)                       {}
func (e *linkEvents) OnContinue(*nsq.Conn)                      {}
func (e *linkEvents) OnResume(*nsq.Conn)                        {}
func (e *linkEvents) OnHeartbeat(*nsq.Conn)                     {}
