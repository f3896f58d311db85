package pgdrv

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer takes batches of rows on its own connection and hands them over from its own
// goroutine. After an empty batch it waits: for a notification (wakeup notify; the
// connection LISTENs on the table's channel) or poll_interval. A broken connection is
// re-opened (driver.Backoff pacing) and LISTENs again; rows of a batch whose transaction did
// not commit are left to whichever consumer takes them next.
type consumer struct {
	d       *pgDriver
	id      int
	take    string // the DELETE … SKIP LOCKED … RETURNING payload
	wake    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	ctx     context.Context // cancelled by Close: ends a wait or a dial in progress
	cancel  context.CancelFunc
	mu      sync.Mutex
	started bool
	closed  bool
	once    sync.Once
}

var _ driver.Consumer = (*consumer)(nil)

const (
	// queryTimeout bounds one batch (BEGIN, DELETE, hand-over, COMMIT).
	queryTimeout = 30 * time.Second
	// closeWait bounds how long Close waits for the batch in progress.
	closeWait = 5 * time.Second
)

func newConsumer(d *pgDriver, id int) *consumer {
	ctx, cancel := context.WithCancel(context.Background())
	return &consumer{
		d:  d,
		id: id,
		take: "DELETE FROM " + d.table + " WHERE id IN (SELECT id FROM " + d.table +
			" ORDER BY id FOR UPDATE SKIP LOCKED LIMIT $1) RETURNING payload",
		wake:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		ctx:    ctx,
		cancel: cancel,
	}
}

// notified records a notification (from pgx, while it reads the connection); one pending
// wake-up stands for any number of them.
func (c *consumer) notified() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// open connects and, with wakeup notify, LISTENs.
func (c *consumer) open(ctx context.Context) (*pgx.Conn, error) {
	var onNotify func()
	if c.d.opts.Wakeup == WakeupNotify {
		onNotify = c.notified
	}
	conn, err := c.d.connect(ctx, onNotify)
	if err != nil {
		return nil, err
	}
	if onNotify != nil {
		if _, err := conn.Exec(ctx, "LISTEN "+c.d.channel()); err != nil {
			_ = conn.Close(context.Background())
			return nil, c.d.classify(err)
		}
	}
	return conn, nil
}

// Start connects (and LISTENs) before it returns, so rows inserted afterwards wake it.
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("postgres: consumer closed")
	}
	if c.started {
		return errors.New("postgres: consumer already started")
	}
	conn, err := c.open(ctx)
	if err != nil {
		return err
	}
	c.started = true
	go c.run(conn, deliver)
	return nil
}

// run is the consumer's loop: take a batch; when it came back empty, wait.
func (c *consumer) run(conn *pgx.Conn, deliver driver.Delivery) {
	defer close(c.done)
	var b driver.Backoff
	born := time.Now()
	for {
		if conn == nil {
			if !b.Sleep(c.stop) {
				return
			}
			var err error
			if conn, err = c.open(c.ctx); err != nil {
				continue
			}
			born = time.Now()
		}
		n, err := c.batch(conn, deliver)
		if c.stopped() {
			_ = conn.Close(context.Background())
			return
		}
		if err == nil && n == 0 {
			err = c.idle(conn)
		}
		if err != nil {
			// A closed connection is re-opened; an error on a live one (the table dropped
			// under the run, a statement error) is retried after a pause.
			if conn.IsClosed() {
				b.Died(born)
				conn = nil
			} else if !b.Sleep(c.stop) {
				_ = conn.Close(context.Background())
				return
			}
			continue
		}
		b.Died(time.Time{}) // healthy again: the next failure is retried at once
	}
}

// batch takes up to batch_size rows and delivers them: inside a transaction that commits
// afterwards (transaction_per_batch), or with the DELETE committing on its own.
func (c *consumer) batch(conn *pgx.Conn, deliver driver.Delivery) (int, error) {
	// Not c.ctx: Close must not cut a batch in the middle of its hand-over (its rows would
	// come back and be delivered twice); queryTimeout bounds a server that stopped answering.
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	if !c.d.opts.txPerBatch() {
		return c.takeRows(ctx, conn, deliver)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return 0, err
	}
	n, err := c.takeRows(ctx, tx, deliver)
	if err != nil {
		_ = tx.Rollback(context.Background())
		return n, err
	}
	return n, tx.Commit(ctx)
}

// querier is a connection or a transaction on it.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func (c *consumer) takeRows(ctx context.Context, q querier, deliver driver.Delivery) (int, error) {
	rows, err := q.Query(ctx, c.take, c.d.opts.BatchSize)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		// The whole result has arrived (pgx reads it before the first Next returns rows of a
		// small batch); receipt time is per row, as the rows are handed over.
		now := time.Now()
		raw := rows.RawValues()
		if len(raw) == 1 {
			deliver(raw[0], now)
			n++
		}
	}
	return n, rows.Err()
}

// idle waits for a notification (wakeup notify) or poll_interval, or until Close.
func (c *consumer) idle(conn *pgx.Conn) error {
	if c.d.opts.Wakeup != WakeupNotify {
		t := time.NewTimer(c.d.opts.PollInterval)
		defer t.Stop()
		select {
		case <-t.C:
		case <-c.stop:
		}
		return nil
	}
	// A notification read during the last query: look again at once.
	select {
	case <-c.wake:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(c.ctx, c.d.opts.PollInterval)
	defer cancel()
	err := conn.PgConn().WaitForNotification(ctx)
	select {
	case <-c.wake:
	default:
	}
	if err != nil && ctx.Err() != nil && !conn.IsClosed() {
		return nil // the wait ended (poll_interval or Close), the connection is fine
	}
	return err
}

func (c *consumer) stopped() bool {
	select {
	case <-c.stop:
		return true
	default:
		return false
	}
}

// Close stops the loop (a wait is cut short, a batch in progress finishes and commits; at most
// closeWait) and closes the connection. Idempotent.
func (c *consumer) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		started := c.started
		c.mu.Unlock()
		close(c.stop)
		c.cancel()
		if started {
			t := time.NewTimer(closeWait)
			defer t.Stop()
			select {
			case <-c.done:
			case <-t.C:
			}
		}
	})
	return nil
}
