package mqttdrv

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// publisher is one connection's PUBLISHes, in the order Send is called. When the connection
// breaks, the next Send opens a new one (bounded by connect_timeout, refused at once while the
// broker is down), so a Send never waits for a broker that is away and the run resumes when
// it is back. Messages whose acknowledgement the broken connection never brought fail.
type publisher struct {
	d     *mqttDriver
	p     params
	topic string

	mu         sync.Mutex // serialises reconnects with sends
	c          atomic.Pointer[conn]
	closed     atomic.Bool
	reconnects atomic.Int64
	closeOnce  sync.Once
}

var _ driver.Publisher = (*publisher)(nil)

var errClosed = errors.New("mqtt: publisher closed")

func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Load() {
		return nil, errClosed
	}
	c := *p.c.Load()
	select {
	case <-c.lost():
		nc, err := p.d.dial(ctx, p.p)
		if err != nil {
			return nil, err
		}
		p.c.Store(&nc)
		if p.closed.Load() { // Close may have disconnected the old connection meanwhile
			nc.disconnect()
			return nil, errClosed
		}
		p.reconnects.Add(1)
		c = nc
	default:
	}
	return c.publish(ctx, p.topic, m)
}

// Reconnects counts the connections opened after the first.
func (p *publisher) Reconnects() int64 { return p.reconnects.Load() }

func (p *publisher) Flush(context.Context) error { return nil }

// Close disconnects without waiting for a Send in progress (which then fails).
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		(*p.c.Load()).disconnect()
	})
	return nil
}
