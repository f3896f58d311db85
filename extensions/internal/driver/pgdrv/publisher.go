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

// errPublisherClosed fails the messages still queued when the publisher closes.
var errPublisherClosed = errors.New("postgres: publisher closed")

// queueSize bounds the messages one publisher holds before its connection INSERTs them;
// beyond it Send waits (the generator's VU stays busy, and k6 drops ticks).
const queueSize = 1024

// publisher INSERTs one row per message, in autocommit, on its own connection: Send queues
// the message and returns; the publisher's goroutine runs the INSERTs one after the other, in
// Send order, and resolves each message's Ack when its COMMIT returned (publish latency =
// time queued + the INSERT's round trip, COMMIT included). The generator never waits for the
// server, as with the brokers' asynchronous publishes. The statement is prepared once per
// connection (pgx's statement cache). PostgreSQL has no message key: Message.Key is ignored.
//
// A broken connection is re-opened for a later message, at most once per backoff step (100 ms
// doubling to 2 s, the pacing of driver.Backoff); messages meanwhile fail at once, so a dead
// server costs publish errors, not a dial per message.
type publisher struct {
	d     *pgDriver
	id    int
	sql   string
	queue chan *pending
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	// The goroutine's own.
	conn     *pgx.Conn
	born     time.Time     // when conn was opened
	wait     time.Duration // between failed dials
	nextDial time.Time
}

var _ driver.Publisher = (*publisher)(nil)

// pending is one queued message; its INSERT resolves it.
type pending struct {
	driver.Pending
	value []byte
}

func newPublisher(d *pgDriver, id int, conn *pgx.Conn) *publisher {
	p := &publisher{
		d:     d,
		id:    id,
		sql:   "INSERT INTO " + d.table + " (payload) VALUES ($1)",
		queue: make(chan *pending, queueSize),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
		conn:  conn,
		born:  time.Now(),
	}
	go p.run()
	return p
}

// Send queues the message (the value is kept until its Ack resolves).
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	a := &pending{Pending: driver.NewPending(), value: m.Value}
	select {
	case <-p.stop:
		return nil, errPublisherClosed
	default:
	}
	select {
	case p.queue <- a:
		return a, nil
	case <-p.stop:
		return nil, errPublisherClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// run INSERTs the queued messages until Close; what is still queued then fails.
func (p *publisher) run() {
	defer close(p.done)
	for {
		select {
		case a := <-p.queue:
			err := p.insert(a.value)
			a.value = nil
			a.Resolve(err)
		case <-p.stop:
			for {
				select {
				case a := <-p.queue:
					a.Resolve(errPublisherClosed)
				default:
					if p.conn != nil {
						ctx, cancel := context.WithTimeout(context.Background(), dialTimeout)
						_ = p.conn.Close(ctx)
						cancel()
					}
					return
				}
			}
		}
	}
}

// insert runs one INSERT (re-opening a broken connection first when the backoff allows).
func (p *publisher) insert(value []byte) error {
	if err := p.ensureConn(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	if _, err := p.conn.Exec(ctx, p.sql, value); err != nil {
		if p.conn.IsClosed() {
			if time.Since(p.born) > driver.MaxBackoff {
				p.wait = 0 // a connection that had been healthy: the first re-dial goes at once
			}
			p.conn = nil
		}
		return fmt.Errorf("publisher %d: INSERT: %w", p.id, p.d.classify(err))
	}
	return nil
}

// ensureConn re-opens a broken connection, unless the last attempt failed too recently.
func (p *publisher) ensureConn() error {
	if p.conn != nil {
		return nil
	}
	now := time.Now()
	if now.Before(p.nextDial) {
		return fmt.Errorf("postgres: publisher %d: reconnecting to %s (next attempt in %v)", p.id, p.d.addr, p.nextDial.Sub(now).Round(time.Millisecond))
	}
	ctx, cancel := context.WithTimeout(context.Background(), dialTimeout+time.Second)
	defer cancel()
	c, err := p.d.connect(ctx, nil)
	if err != nil {
		p.wait = min(max(2*p.wait, driver.MinBackoff), driver.MaxBackoff)
		p.nextDial = time.Now().Add(p.wait)
		return fmt.Errorf("publisher %d: %w", p.id, err)
	}
	p.conn, p.born = c, time.Now()
	return nil
}

// Flush: every queued message is INSERTed by the publisher's goroutine without being asked.
func (p *publisher) Flush(context.Context) error { return nil }

// Close lets the INSERT in progress finish, fails what is still queued and closes the
// connection. Idempotent.
func (p *publisher) Close() error {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
	})
	return nil
}
