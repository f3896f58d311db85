package pgdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// acked is the Ack of an INSERT whose COMMIT already returned.
var acked = driver.Done(nil)

// publisher INSERTs one row per Send on its own connection, in autocommit: Send returns when
// the COMMIT did (so the Ack is already resolved; publish latency is that round trip). The
// statement is prepared once per connection (pgx's statement cache). PostgreSQL has no
// message key: Message.Key is ignored.
//
// A broken connection is re-opened by a later Send, at most once per backoff step (100 ms,
// doubling to 2 s, the pacing of driver.Backoff), so a dead server costs a failed Send, not a
// dial per message.
type publisher struct {
	d   *pgDriver
	id  int
	sql string

	mu        sync.Mutex // Send is serialised by the caller; Close may come from elsewhere
	conn      *pgx.Conn
	born      time.Time     // when conn was opened
	wait      time.Duration // between failed dials: 100 ms doubling to 2 s (driver.MinBackoff…MaxBackoff)
	nextDial  time.Time
	closed    bool
	closeOnce sync.Once
}

var (
	_ driver.Publisher   = (*publisher)(nil)
	_ driver.ValueCopier = (*publisher)(nil)
)

// CopiesValue: pgx writes the parameter into its buffer and the round trip ends inside Send.
func (p *publisher) CopiesValue() bool { return true }

func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("postgres: publisher closed")
	}
	if err := p.ensureConn(ctx); err != nil {
		return nil, err
	}
	if _, err := p.conn.Exec(ctx, p.sql, m.Value); err != nil {
		if p.conn.IsClosed() {
			if time.Since(p.born) > driver.MaxBackoff {
				p.wait = 0 // a connection that had been healthy: the first re-dial goes at once
			}
			p.conn = nil
		}
		return nil, fmt.Errorf("postgres: publisher %d: INSERT: %w", p.id, p.d.classify(err))
	}
	return acked, nil
}

// ensureConn re-opens a broken connection, unless the last attempt failed too recently.
func (p *publisher) ensureConn(ctx context.Context) error {
	if p.conn != nil {
		return nil
	}
	if now := time.Now(); now.Before(p.nextDial) {
		return fmt.Errorf("postgres: publisher %d: reconnecting to %s (next attempt in %v)", p.id, p.d.addr, p.nextDial.Sub(now).Round(time.Millisecond))
	}
	c, err := p.d.connect(ctx, nil)
	if err != nil {
		p.wait = min(max(2*p.wait, driver.MinBackoff), driver.MaxBackoff)
		p.nextDial = time.Now().Add(p.wait)
		return fmt.Errorf("postgres: publisher %d: %w", p.id, err)
	}
	p.conn, p.born = c, time.Now()
	return nil
}

func (p *publisher) Flush(context.Context) error { return nil }

func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.closed = true
		if p.conn != nil {
			ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
			defer cancel()
			_ = p.conn.Close(ctx)
			p.conn = nil
		}
	})
	return nil
}
