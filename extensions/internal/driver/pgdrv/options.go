package pgdrv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Wake-up modes: how an idle consumer learns that rows arrived.
const (
	WakeupPoll   = "poll"   // look again every poll_interval
	WakeupNotify = "notify" // LISTEN on the table's channel; a trigger NOTIFYs once per INSERT statement
)

// Options is the scenario's `broker.postgres` block.
type Options struct {
	// Schema holds the queue table (the destination); created when missing, never dropped.
	// Default "public". Same naming rule as the table.
	Schema string `yaml:"schema"`
	// Wakeup is how a consumer that found the table empty learns of new rows: "poll"
	// (default: it looks again every poll_interval) or "notify" (LISTEN, and an AFTER INSERT
	// statement trigger that calls pg_notify: an idle consumer wakes at once, but every
	// notifying COMMIT takes one database-wide lock until it ends, WAL flush included, so
	// concurrent INSERTs no longer share flushes: measured here, 8 connections held 1,000
	// msg/s with poll and fell behind at 800 msg/s with notify).
	Wakeup string `yaml:"wakeup"`
	// PollInterval is how long an idle consumer waits before it looks again: the polling
	// period with wakeup poll (default 5ms), the longest wait for a notification with
	// wakeup notify (default 1s; rows that come back from an aborted batch send none).
	PollInterval time.Duration `yaml:"poll_interval"`
	// BatchSize is how many rows one consumer takes per DELETE … LIMIT n (default 100).
	BatchSize int `yaml:"batch_size"`
	// TransactionPerBatch: each batch is deleted inside a transaction that commits after its
	// messages were handed over (default true: a batch whose consumer or connection dies
	// comes back, at-least-once). false: the DELETE commits on its own before delivery
	// (one round trip less; a batch whose reply is lost is gone, at-most-once).
	TransactionPerBatch *bool `yaml:"transaction_per_batch"`
	// SynchronousCommit: false sets synchronous_commit=off on the run's sessions, so a
	// COMMIT returns before its WAL is flushed (a server crash may lose the last acknowledged
	// messages). Default true.
	SynchronousCommit *bool `yaml:"synchronous_commit"`
	// Unlogged creates the table UNLOGGED (no WAL: faster, emptied by a crash). Only when the
	// run creates the table.
	Unlogged bool `yaml:"unlogged"`
	// PublishBatch is the most messages one INSERT carries: 1 (default) INSERTs each message
	// as its own row and statement; more INSERTs what waits for the publisher's connection as
	// one multi-row INSERT … VALUES ($1), ($2), … (up to this many rows, one COMMIT). A
	// message's publish latency then runs from its send to its statement's COMMIT, so it
	// includes its wait for the batch (up to publish_linger, or the INSERT before it);
	// end-to-end latency includes that wait too.
	PublishBatch int `yaml:"publish_batch"`
	// PublishLinger is how long a batch that is not full waits for more messages before it
	// is INSERTed (with publish_batch > 1); 0 INSERTs what is waiting at once, so batches
	// fill only when messages arrive faster than INSERTs return.
	PublishLinger time.Duration `yaml:"publish_linger"`
	// Keep leaves a table the run created in place after the run.
	Keep bool `yaml:"keep"`
	// SSLMode is libpq's sslmode for every connection: disable (no TLS), require (TLS; the
	// server's certificate is checked only when tls.ca_file is given, as libpq does with a
	// root certificate), verify-ca (the certificate chains to tls.ca_file or the system's
	// roots, any name) or verify-full (and names the url's host or tls.server_name). Unset:
	// verify-full with a tls block, else the url decides (its sslmode parameter, or
	// PGSSLMODE; none: require when a password is sent, so it never crosses in plain text,
	// else prefer, TLS when the server offers it, unverified). Set here, it replaces the
	// url's ssl* parameters, which must then be absent.
	SSLMode string `yaml:"sslmode"`
	// TLS is the CA bundle that verifies the server (sslrootcert) and the client certificate
	// and key (sslcert, sslkey) a pg_hba `cert` line or clientcert=verify-full requires; file
	// names relative to the scenario file.
	TLS *driver.TLS `yaml:"tls"`
	// PasswordEnv names an environment variable holding the password, which replaces the
	// url's (the password itself never appears in the scenario); the user goes in the url.
	PasswordEnv string `yaml:"password_env"`
	// PasswordFile is a file holding the password (one trailing line break ignored); not
	// with password_env.
	PasswordFile string `yaml:"password_file"`
}

// CloneRefs gives the options their own copies of the pointer fields (driver.Prepared).
func (o *Options) CloneRefs() {
	if o.TransactionPerBatch != nil {
		v := *o.TransactionPerBatch
		o.TransactionPerBatch = &v
	}
	if o.SynchronousCommit != nil {
		v := *o.SynchronousCommit
		o.SynchronousCommit = &v
	}
	if o.TLS != nil {
		v := *o.TLS
		o.TLS = &v
	}
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Schema == "" {
		o.Schema = "public"
	}
	if o.Wakeup == "" {
		o.Wakeup = WakeupPoll
	}
	if o.PollInterval == 0 {
		o.PollInterval = time.Second
		if o.Wakeup == WakeupPoll {
			o.PollInterval = 5 * time.Millisecond
		}
	}
	if o.BatchSize == 0 {
		o.BatchSize = 100
	}
	if o.PublishBatch == 0 {
		o.PublishBatch = 1
	}
	if o.TransactionPerBatch == nil {
		t := true
		o.TransactionPerBatch = &t
	}
	if o.SynchronousCommit == nil {
		t := true
		o.SynchronousCommit = &t
	}
	if o.SSLMode == "" && o.TLS != nil {
		o.SSLMode = SSLVerifyFull
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	if err := checkIdent("schema", o.Schema); err != nil {
		errs = append(errs, driver.FieldError{Field: "schema", Msg: err.Error()})
	}
	if o.Wakeup != WakeupNotify && o.Wakeup != WakeupPoll {
		errs = append(errs, driver.FieldError{Field: "wakeup", Msg: "must be notify or poll, got " + strconv.Quote(o.Wakeup)})
	}
	if o.PollInterval < 100*time.Microsecond || o.PollInterval > time.Minute {
		errs = append(errs, driver.FieldError{Field: "poll_interval", Msg: "must be 100us..1m, got " + o.PollInterval.String()})
	}
	if o.BatchSize < 1 || o.BatchSize > 10000 {
		errs = append(errs, driver.FieldError{Field: "batch_size", Msg: "must be 1..10000, got " + strconv.Itoa(o.BatchSize)})
	}
	if o.PublishBatch < 1 || o.PublishBatch > 10000 {
		// 10,000 rows: well within a statement's 65,535 parameters.
		errs = append(errs, driver.FieldError{Field: "publish_batch", Msg: "must be 1..10000, got " + strconv.Itoa(o.PublishBatch)})
	}
	if o.PublishLinger < 0 || o.PublishLinger > time.Second {
		errs = append(errs, driver.FieldError{Field: "publish_linger", Msg: "must be between 0 and 1s, got " + o.PublishLinger.String()})
	}
	return append(errs, o.validateSecurity()...)
}

func (o *Options) txPerBatch() bool { return o.TransactionPerBatch == nil || *o.TransactionPerBatch }
func (o *Options) syncCommit() bool { return o.SynchronousCommit == nil || *o.SynchronousCommit }

// AckMode says what publish latency waits for: the INSERT's COMMIT, flushed to the WAL on
// disk ("commit"), or returned before the flush ("commit-async", synchronous_commit off).
func (o *Options) AckMode() driver.AckMode {
	if o.syncCommit() {
		return "commit"
	}
	return "commit-async"
}

// promisesDelivery (Spec.PromisesDelivery): an acknowledged INSERT survives a server crash
// (synchronous commit, a logged table), and a consumer's batch comes back unless its
// transaction committed after delivery. Otherwise a fault may lose messages by design.
func promisesDelivery(opts driver.Options) bool {
	o := opts.(*Options)
	return o.syncCommit() && !o.Unlogged && o.txPerBatch()
}

// passwordWithoutSSLMode: a password is sent and no sslmode was said (option, url parameter or
// PGSSLMODE).
func (o *Options) passwordWithoutSSLMode(cc *pgx.ConnConfig, rawURL string) bool {
	if cc.Password == "" || o.SSLMode != "" || os.Getenv("PGSSLMODE") != "" {
		return false
	}
	for _, p := range urlSSLParams(rawURL) {
		if strings.EqualFold(p, "sslmode") {
			return false
		}
	}
	return true
}

// requireTLSForPassword makes a connection that sends a password TLS-only when no sslmode was
// said (option, url parameter or PGSSLMODE): libpq's default, prefer, retries in plain text
// when the server declines TLS, and the password would cross the network in the clear. A
// said sslmode, disable and prefer included, is kept; a unix socket carries no TLS.
func (o *Options) requireTLSForPassword(cc *pgx.ConnConfig, rawURL string) error {
	if !o.passwordWithoutSSLMode(cc, rawURL) || strings.HasPrefix(cc.Host, "/") {
		return nil
	}
	req := *o
	req.SSLMode = SSLRequire
	c, err := req.tlsConfig(cc.Host)
	if err != nil {
		return fmt.Errorf("postgres: tls: %w", err)
	}
	cc.TLSConfig, cc.Fallbacks = c, nil
	return nil
}
