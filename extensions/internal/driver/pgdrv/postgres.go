// Package pgdrv is mqbench's PostgreSQL-as-a-queue driver (pgx v5): the destination is a
// table (id bigserial primary key, payload bytea); a publisher INSERTs one row per message,
// or with publish_batch one multi-row INSERT of what waits (autocommit, queued and sent in
// order by the publisher's goroutine, so publish latency is the wait in that queue plus the
// INSERT's COMMIT), and consumers take rows with
//
//	DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id FOR UPDATE SKIP LOCKED LIMIT n) RETURNING payload
//
// so several consumers share the table without blocking each other and each row reaches one
// of them. By default the DELETE runs in a transaction committed after the batch was handed
// over (at-least-once). An idle consumer polls, or is woken by LISTEN/NOTIFY (an AFTER INSERT
// statement trigger on the table).
//
// Every publisher and consumer is its own connection; the driver's own work (Setup,
// Teardown, BrokerStats) goes through a small pgxpool. Setup creates the table (and the
// trigger with wakeup notify); Teardown drops a table the run created unless keep.
// BrokerStats' backlog is the table's row count, or above 100,000 rows its primary key's
// range (max − min + 1), so that the sample never reads the whole table; the read that may
// excuse a loss as a cell ends (the ledger's held) counts the rows exactly.
//
// TLS follows libpq: sslmode (disable, require, verify-ca, verify-full) with the common tls
// block for the CA and the client certificate; the password comes from the url,
// password_env or password_file, and no message repeats it. A server that refuses this
// client's TLS or credentials is a refusal (exit 113), not an unreachable server.
package pgdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// dialTimeout bounds connecting, so an unreachable server is reported quickly.
const dialTimeout = 2 * time.Second

// Open checks that the server answers (a pooled connection and a ping) and returns the run's
// driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := optionsFrom(cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("postgres: destination (table) is empty")
	}
	if err := checkTable(cfg.Destination, o); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`postgres: url "embedded" is only supported by the nats broker; give a postgres:// URL`)
	}
	if err := checkURL(cfg.URL); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if cfg.Subscriptions > 1 {
		return nil, fmt.Errorf("postgres: %d subscriptions are not supported (one queue table per run; its consumers share the rows)", cfg.Subscriptions)
	}
	cc, err := pgx.ParseConfig(strings.TrimSpace(cfg.URL))
	if err != nil {
		// pgx's message may quote the url, password included.
		return nil, errors.New("postgres: the url does not parse as a PostgreSQL connection string")
	}
	cc.ConnectTimeout = dialTimeout
	if err := o.applySecurity(cc, cfg.URL); err != nil {
		return nil, err
	}
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	cc.RuntimeParams["application_name"] = "mqbench"
	if !o.syncCommit() {
		cc.RuntimeParams["synchronous_commit"] = "off"
	}
	d := &pgDriver{
		cfg:   cfg,
		opts:  o,
		conn:  cc,
		addr:  net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))),
		table: pgx.Identifier{o.Schema, cfg.Destination}.Sanitize(),
	}
	if strings.HasPrefix(cc.Host, "/") {
		d.addr = cc.Host // a unix socket directory
	}
	pc, err := pgxpool.ParseConfig("")
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pc.ConnConfig = cc.Copy()
	pc.MaxConns = 2
	pc.MinConns = 0
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, d.classify(err)
	}
	pctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, d.classify(err)
	}
	d.pool = pool
	return d, nil
}

var _ driver.Identifier = (*pgDriver)(nil)

// Server is "PostgreSQL <server_version>", from the startup parameters of one of the admin
// pool's connections (the one Open's ping made, when it is idle).
func (d *pgDriver) Server(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, dialTimeout+time.Second) // as Open's ping
	defer cancel()
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return ""
	}
	defer c.Release()
	if v := c.Conn().PgConn().ParameterStatus("server_version"); v != "" {
		return "PostgreSQL " + v
	}
	return ""
}

type pgDriver struct {
	cfg   driver.Config
	opts  *Options
	conn  *pgx.ConnConfig // every connection's settings (copied per connection)
	addr  string          // host:port, for messages (never the credentials)
	table string          // "schema"."table", quoted
	pool  *pgxpool.Pool

	mu      sync.Mutex
	created bool // Setup created the table
}

// classify turns a connection error into an *driver.UnreachableError (nothing answered), an
// authentication or database error that names the user and database (never the password),
// or a plain error.
func (d *pgDriver) classify(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("postgres: authentication failed for user %q at %s: %s", d.conn.User, d.addr, pe.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("postgres: database %q does not exist at %s (create it, or name another in the url)", d.conn.Database, d.addr)
		}
		return fmt.Errorf("postgres: %s: %s (SQLSTATE %s)", d.addr, pe.Message, pe.Code)
	}
	var ve *tls.CertificateVerificationError
	if errors.As(err, &ve) {
		return fmt.Errorf("postgres: %s: TLS: the server's certificate is not trusted: %v", d.addr, ve.Err)
	}
	if d.passwordForcedTLS() && strings.Contains(err.Error(), "server refused TLS connection") {
		return fmt.Errorf("postgres: %s does not offer TLS, and a password is sent only over TLS unless the scenario says sslmode (broker.postgres.sslmode: disable sends it in clear text: only on a network you trust)", d.addr)
	}
	if driver.IsUnreachable(err) && !driver.TLSRefused(tlsOnly(d.conn), err) {
		return &driver.UnreachableError{Broker: "postgres", Address: d.addr, Err: unwrapConnect(err)}
	}
	return fmt.Errorf("postgres: %s: %w", d.addr, unwrapConnect(err))
}

// passwordForcedTLS: TLS was required only because a password is sent and no sslmode was said
// (requireTLSForPassword), so a server without TLS gets advice, not a bare refusal.
func (d *pgDriver) passwordForcedTLS() bool {
	return d.opts.passwordWithoutSSLMode(d.conn, d.cfg.URL)
}

// tlsOnly: every attempt is TLS (sslmode require or verify-*), so a connection closed after
// the handshake is the server refusing this client. With prefer or allow a plain-text attempt
// follows, and a close means what it means without TLS.
func tlsOnly(cc *pgx.ConnConfig) bool {
	if cc.TLSConfig == nil {
		return false
	}
	for _, f := range cc.Fallbacks {
		if f.TLSConfig == nil {
			return false
		}
	}
	return true
}

// unwrapConnect keeps the network error of a failed connect: pgconn.ConnectError's message
// repeats the user and host, and with sslmode prefer (pgx's default) joins one line per
// attempt (TLS, then plain), all saying the same.
func unwrapConnect(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) && ce.Unwrap() != nil {
		return errors.New(strings.ReplaceAll(ce.Unwrap().Error(), "\n", "; "))
	}
	return err
}

// connect opens one connection of its own (a publisher's or a consumer's); onNotify, when
// not nil, is called for every notification the connection receives.
func (d *pgDriver) connect(ctx context.Context, onNotify func()) (*pgx.Conn, error) {
	cc := d.conn.Copy()
	if onNotify != nil {
		cc.OnNotification = func(*pgconn.PgConn, *pgconn.Notification) { onNotify() }
	}
	c, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return nil, d.classify(err)
	}
	return c, nil
}

// channel is the LISTEN/NOTIFY channel of the table: its name (the trigger uses TG_TABLE_NAME).
func (d *pgDriver) channel() string { return pgx.Identifier{d.cfg.Destination}.Sanitize() }

// Close closes the pool.
func (d *pgDriver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pool != nil {
		d.pool.Close()
		d.pool = nil
	}
	return nil
}

// NewPublisher opens publisher connection id now, so a server gone since Open is reported here.
func (d *pgDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	c, err := d.connectWire(ctx)
	if err != nil {
		return nil, err
	}
	return newPublisher(d, id, c), nil
}

// connectWire opens a publisher's connection and takes it over from pgx (wireConn).
func (d *pgDriver) connectWire(ctx context.Context) (*wireConn, error) {
	c, err := d.connect(ctx, nil)
	if err != nil {
		return nil, err
	}
	w, err := hijack(ctx, c)
	if err != nil {
		return nil, d.classify(err)
	}
	return w, nil
}

// NewConsumer prepares consumer id; it connects at Start.
func (d *pgDriver) NewConsumer(_ context.Context, id int) (driver.Consumer, error) {
	return newConsumer(d, id), nil
}

// optionsFrom accepts the decoded options block (or nil for all defaults).
func optionsFrom(v any) (*Options, error) { return driver.Prepared[Options]("postgres", v) }
