package pgdrv

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// setupLock serialises mqbench's DDL across runs and connections (a transaction-scoped
// advisory lock): concurrent CREATE OR REPLACE FUNCTION of one function fails with "tuple
// concurrently updated", and Teardown must not drop the trigger function while another
// run's Setup attaches it.
const setupLock = "SELECT pg_advisory_xact_lock(hashtext('mqbench-pgdrv-ddl'))"

// notifyFunc is the trigger function, one per schema, shared by every queue table in it: one
// notification per INSERT statement on the channel named like the table (LISTEN "table").
func (d *pgDriver) notifyFunc() string {
	return pgx.Identifier{d.opts.Schema, "mqbench_notify"}.Sanitize()
}

// ddl runs fn in one transaction holding setupLock.
func (d *pgDriver) ddl(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if err := d.inTx(ctx, setupLock, fn); err != nil {
		return d.classify(err)
	}
	return nil
}

// inTx runs the statement first, then fn, in one transaction of the driver's pool.
func (d *pgDriver) inTx(ctx context.Context, first string, fn func(tx pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, d.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, first); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Setup creates the schema (when missing) and the table, recording whether this run created
// the table; with wakeup notify it also attaches the NOTIFY trigger (to an existing table too).
func (d *pgDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.ddl(ctx, func(tx pgx.Tx) error {
		if d.opts.Schema != "public" {
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{d.opts.Schema}.Sanitize()); err != nil {
				return err
			}
		}
		var exists bool
		if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", d.table).Scan(&exists); err != nil {
			return err
		}
		if !exists {
			unlogged := ""
			if d.opts.Unlogged {
				unlogged = "UNLOGGED "
			}
			if _, err := tx.Exec(ctx, "CREATE "+unlogged+"TABLE "+d.table+" (id bigserial PRIMARY KEY, payload bytea NOT NULL)"); err != nil {
				return err
			}
		}
		if d.opts.Wakeup == WakeupNotify {
			if _, err := tx.Exec(ctx, "CREATE OR REPLACE FUNCTION "+d.notifyFunc()+"() RETURNS trigger LANGUAGE plpgsql AS "+
				"$$BEGIN PERFORM pg_notify(TG_TABLE_NAME, ''); RETURN NULL; END$$"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "CREATE OR REPLACE TRIGGER mqbench_notify AFTER INSERT ON "+d.table+
				" FOR EACH STATEMENT EXECUTE FUNCTION "+d.notifyFunc()+"()"); err != nil {
				return err
			}
		}
		d.created = !exists
		return nil
	})
}

// Teardown drops the table if this run created it (unless keep), with its trigger, and the
// schema's trigger function once no table uses it.
func (d *pgDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.created || d.opts.Keep {
		return nil
	}
	err := d.ddl(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DROP TABLE IF EXISTS "+d.table); err != nil {
			return err
		}
		var used bool
		err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgfoid = to_regprocedure($1))",
			d.notifyFunc()+"()").Scan(&used)
		if err != nil || used {
			return err
		}
		_, err = tx.Exec(ctx, "DROP FUNCTION IF EXISTS "+d.notifyFunc()+"()")
		return err
	})
	if err != nil {
		return err
	}
	d.created = false
	return nil
}

// DestinationExists reports whether the table exists (the conformance suite checks Setup
// and Teardown with it).
func (d *pgDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	err = d.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", d.table).Scan(&exists)
	if err != nil {
		return false, true, d.classify(err)
	}
	return exists, true, nil
}
