package pgdrv

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// errPublisherClosed fails the messages still queued when the publisher closes.
var errPublisherClosed = errors.New("postgres: publisher closed")

// queueSize bounds the messages one publisher holds before its connection INSERTs them
// (at least 4 batches);
// beyond it Send waits (the generator's VU stays busy, and k6 drops ticks).
const queueSize = 1024

// publisher INSERTs the messages on its own connection, in autocommit: Send queues the
// message (a driver.Batcher) and returns; the publisher's goroutine INSERTs what waits, one
// statement after the other in Send order (one row per message, or with publish_batch one
// multi-row INSERT of up to that many), and resolves each message's Ack when its statement's
// COMMIT returned (publish latency = time queued + the INSERT's round trip, COMMIT included).
// The generator never waits for the server, as with the brokers' asynchronous publishes.
// Each statement is prepared once per connection (one per batch length) and run with the
// payloads as they are, in bytea's binary format, written from one reused buffer (wireConn):
// pgx's per-value encoding, one buffer per row, was a third of the publisher's CPU at 100-row
// INSERTs, and its growing of a fresh buffer for every Bind a quarter. PostgreSQL has no
// message key: Message.Key is ignored.
//
// A broken connection is re-opened for a later message, at most once per backoff step (100 ms
// doubling to 2 s, the pacing of driver.Backoff); messages meanwhile fail at once, so a dead
// server costs publish errors, not a dial per message.
type publisher struct {
	d     *pgDriver
	id    int
	batch *driver.Batcher
	once  sync.Once
	stmts atomic.Int64 // INSERT statements run (tests: batching happened)

	// The goroutine's own.
	sql      map[int]insertStmt // the INSERT for a batch of n rows
	params   [][]byte           // the batch's payloads, reused
	conn     *wireConn
	born     time.Time     // when conn was opened
	wait     time.Duration // between failed dials
	nextDial time.Time
}

var _ driver.Publisher = (*publisher)(nil)

func newPublisher(d *pgDriver, id int, conn *wireConn) *publisher {
	p := &publisher{d: d, id: id, sql: map[int]insertStmt{}, conn: conn, born: time.Now()}
	p.batch = driver.NewBatcher(driver.BatchLimits{
		Max:    d.opts.PublishBatch,
		Linger: d.opts.PublishLinger,
		Queue:  max(queueSize, 4*d.opts.PublishBatch),
	}, errPublisherClosed, p.send)
	return p
}

// Send queues the message (the value is kept until its Ack resolves).
func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	return p.batch.Add(ctx, m)
}

// send INSERTs one batch and resolves its messages (the batcher's goroutine).
func (p *publisher) send(batch []*driver.Queued) {
	p.params = p.params[:0]
	for _, q := range batch {
		p.params = append(p.params, q.Value)
	}
	err := p.insert(p.params)
	p.stmts.Add(1)
	clear(p.params)
	for _, q := range batch {
		q.Value = nil
		q.Resolve(err)
	}
}

// insertStmt is a prepared INSERT's name on the connection and its SQL.
type insertStmt struct{ name, sql string }

// statement is the INSERT of n rows: VALUES ($1), ($2), … in the order given, so the rows'
// ids (the order consumers read them in) follow Send order.
func (p *publisher) statement(n int) insertStmt {
	if s, ok := p.sql[n]; ok {
		return s
	}
	var b strings.Builder
	b.WriteString("INSERT INTO " + p.d.table + " (payload) VALUES ")
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteString(", ")
		}
		b.WriteString("($" + strconv.Itoa(i) + ")")
	}
	s := insertStmt{name: "mqbench_insert_" + strconv.Itoa(n), sql: b.String()}
	p.sql[n] = s
	return s
}

// insert runs one INSERT of values (re-opening a broken connection first when the backoff
// allows).
func (p *publisher) insert(values [][]byte) error {
	if err := p.ensureConn(); err != nil {
		return err
	}
	err := p.conn.insert(p.statement(len(values)), values, queryTimeout)
	if err != nil {
		if p.conn.broken {
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
	c, err := p.d.connectWire(ctx)
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
		p.batch.Close() // the goroutine has ended: its connection is free
		if p.conn != nil {
			p.conn.close()
		}
	})
	return nil
}
