package zmqdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zeromq/zmq4"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var errClosed = errors.New("zeromq: producer closed")

// pushPublisher holds one PUSH per consumer and sends round-robin.
type pushPublisher struct {
	socks   []zmq4.Socket
	eps     []string
	next    int
	timeout time.Duration

	inflight atomic.Int64 // start of the send in progress (unix ns), 0 when none
	current  atomic.Int64 // its socket index
	broken   atomic.Pointer[error]

	stop      chan struct{}
	wg        sync.WaitGroup
	closeOnce sync.Once
	sockOnce  sync.Once
}

func newPushPublisher(socks []zmq4.Socket, eps []string, timeout time.Duration) *pushPublisher {
	p := &pushPublisher{socks: socks, eps: eps, timeout: timeout, stop: make(chan struct{})}
	p.wg.Add(1)
	go p.watch()
	return p
}

// watch fails a send blocked longer than the timeout by closing the sockets, which ends the
// blocked write.
func (p *pushPublisher) watch() {
	defer p.wg.Done()
	t := time.NewTicker(max(p.timeout/4, 5*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			if s := p.inflight.Load(); s != 0 && now.UnixNano()-s > int64(p.timeout) {
				p.abort(fmt.Errorf("zeromq: send to %s blocked for more than %v (the consumer is not reading; a PUSH waits for room in its TCP buffers): producer stopped",
					p.eps[p.current.Load()], p.timeout))
			}
		}
	}
}

// abort records why the producer is broken and closes its sockets.
func (p *pushPublisher) abort(err error) {
	p.broken.CompareAndSwap(nil, &err)
	p.sockOnce.Do(func() {
		for _, s := range p.socks {
			s.Close()
		}
	})
}

func (p *pushPublisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	if e := p.broken.Load(); e != nil {
		return nil, *e
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	i := p.next
	p.next = (p.next + 1) % len(p.socks)
	stop := context.AfterFunc(ctx, func() { p.abort(fmt.Errorf("zeromq: send to %s: %w", p.eps[i], context.Cause(ctx))) })
	p.current.Store(int64(i))
	p.inflight.Store(time.Now().UnixNano())
	err := p.socks[i].Send(zmq4.NewMsg(m.Value))
	p.inflight.Store(0)
	stop()
	if err != nil {
		if e := p.broken.Load(); e != nil {
			return nil, *e
		}
		return nil, fmt.Errorf("zeromq: send to %s: %w", p.eps[i], err)
	}
	return nil, nil
}

// CopiesValue: a PUSH writes the frame to the connection inside Send.
func (p *pushPublisher) CopiesValue() bool { return true }

func (p *pushPublisher) Flush(context.Context) error { return nil }

// Close closes every socket (bounded: it closes the connections). Idempotent.
func (p *pushPublisher) Close() error {
	p.closeOnce.Do(func() {
		close(p.stop)
		p.wg.Wait()
		p.abort(errClosed)
	})
	return nil
}

// pubPublisher holds one PUB per subscriber; each queues (up to hwm) and writes in the
// background, so Send never blocks.
type pubPublisher struct {
	socks     []zmq4.Socket
	topic     []byte
	closed    atomic.Bool
	closeOnce sync.Once
}

func (p *pubPublisher) Send(_ context.Context, m driver.Message) (driver.Ack, error) {
	if p.closed.Load() {
		return nil, errClosed
	}
	msg := zmq4.NewMsgFrom(p.topic, m.Value)
	for _, s := range p.socks {
		if err := s.SendMulti(msg); err != nil {
			return nil, fmt.Errorf("zeromq: publish: %w", err)
		}
	}
	return nil, nil
}

func (p *pubPublisher) Flush(context.Context) error { return nil }

// Close closes every PUB; messages still queued are dropped. Idempotent.
func (p *pubPublisher) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		for _, s := range p.socks {
			s.Close()
		}
	})
	return nil
}
