package pgdrv

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// The table's backlog, read two ways. count(*) reads the whole table: once a second over a
// run's millions of rows it took an eighth of the server's INSERT throughput from the run it
// was observing, so the per-second sample counts only small tables; the read that may excuse
// a loss (the ledger's reconciliation, once as a cell with losses closes) counts exactly.

var (
	_ driver.BrokerStats   = (*pgDriver)(nil)
	_ driver.BacklogReader = (*pgDriver)(nil)
)

// exactCountRows is the largest key range the per-second sample counts row by row (about
// 10 ms of one server core at 1 KB rows).
const exactCountRows = 100_000

// Statement timeouts, each a transaction's first statement: a sample's, and the
// reconciliation's count (the runner gives the whole read 2 s; the key range needs well under
// the rest).
const (
	sampleTimeout = "SET LOCAL statement_timeout = 500"
	exactTimeout  = "SET LOCAL statement_timeout = 1500"
)

// BrokerStats: Backlog is the table's row count (rows being delivered in an open batch
// transaction included, like a queue's unacknowledged messages) while the primary key's
// range (max − min + 1, two index probes) spans at most exactCountRows, else that range (it
// also counts ids a failed INSERT or a consumer's out-of-order delete left unused).
// PostgreSQL exposes no CPU time or memory of its processes over SQL: both stay Unknown.
func (d *pgDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	err := d.inTx(ctx, sampleTimeout, func(tx pgx.Tx) error {
		span, err := d.keyRange(ctx, tx)
		if err != nil {
			return err
		}
		st.Backlog = span
		if span == 0 || span > exactCountRows {
			return nil
		}
		n, err := d.rowCount(ctx, tx)
		if err != nil {
			return err
		}
		st.Backlog = n
		return nil
	})
	if canceled(err) && st.Backlog >= 0 { // the count ran out of time: the range stands
		err = nil
	}
	if err != nil {
		return driver.UnknownStats(), d.classify(err)
	}
	return st, nil
}

// ReadBacklog counts the table's rows (those in a consumer's open batch transaction
// included). A table too large to count in exactTimeout is given its key range instead,
// which is never below the truth.
func (d *pgDriver) ReadBacklog(ctx context.Context) (int64, error) {
	n := int64(driver.Unknown)
	err := d.inTx(ctx, exactTimeout, func(tx pgx.Tx) (err error) {
		n, err = d.rowCount(ctx, tx)
		return err
	})
	if canceled(err) {
		err = d.inTx(ctx, sampleTimeout, func(tx pgx.Tx) (err error) {
			n, err = d.keyRange(ctx, tx)
			return err
		})
	}
	if err != nil {
		return driver.Unknown, d.classify(err)
	}
	return n, nil
}

// keyRange is max(id) − min(id) + 1 (0 for an empty table): two probes of the primary key.
func (d *pgDriver) keyRange(ctx context.Context, tx pgx.Tx) (int64, error) {
	var span int64
	err := tx.QueryRow(ctx, "SELECT coalesce(max(id) - min(id) + 1, 0) FROM "+d.table).Scan(&span)
	return span, err
}

// rowCount is count(*): it reads the whole table.
func (d *pgDriver) rowCount(ctx context.Context, tx pgx.Tx) (int64, error) {
	var n int64
	err := tx.QueryRow(ctx, "SELECT count(*) FROM "+d.table).Scan(&n)
	return n, err
}

// canceled: PostgreSQL cancelled the statement (statement_timeout).
func canceled(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "57014"
}
