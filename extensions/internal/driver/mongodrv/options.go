package mongodrv

import (
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Claim strategies (option claim).
const (
	// ClaimBatch finds the claim_batch oldest messages and takes them in one round: with
	// transaction, find + deleteMany in one transaction; without, each message's _id is
	// inserted into the claims collection (a unique _id: one consumer wins it), the won
	// messages are delivered and deleted.
	ClaimBatch = "batch"
	// ClaimOne takes one message per round trip with findOneAndDelete sorted by _id.
	ClaimOne = "find-one-and-delete"
)

// Orders (option order).
const (
	OrderID      = "id"      // sort by _id: oldest first (ObjectIDs are made by the producer)
	OrderNatural = "natural" // no sort: the server's natural order
)

// Wake-ups (option notify).
const (
	NotifyPoll         = "poll"          // claim again after poll_interval when the queue was empty
	NotifyChangeStream = "change-stream" // a change stream's insert events wake the consumers
)

// Options is the scenario's `broker.mongodb` block.
type Options struct {
	// Database holds the run's collection (the destination) and its claims collection.
	Database string `yaml:"database"`
	// WriteConcern is every insert's w: 1 (the primary applied it) or majority (a majority
	// of the replica set did). Publish latency is the time to that acknowledgement.
	WriteConcern string `yaml:"write_concern"`
	// Journal adds j: true to the write concern: the acknowledgement waits for the journal
	// (on disk).
	Journal bool `yaml:"journal"`
	// InsertBatch is the most messages one insert carries. 1: InsertOne per message, Send
	// waits for it (a connection sends at most one message per round trip). More: group
	// commit, Send returns at once and one insertMany takes every message queued meanwhile,
	// up to insert_batch, as soon as the previous one was acknowledged.
	InsertBatch int `yaml:"insert_batch"`
	// Claim is how consumers take messages: batch (claim_batch per round) or
	// find-one-and-delete (one per round trip).
	Claim string `yaml:"claim"`
	// ClaimBatch is the most messages one batch claim takes.
	ClaimBatch int `yaml:"claim_batch"`
	// Order is which messages a claim takes first: id (oldest _id: FIFO) or natural (the
	// server's natural order, no sort). Default: id on MongoDB, natural on FerretDB, which
	// sorts by reading the whole collection for every claim.
	Order string `yaml:"order"`
	// Notify is how an idle consumer learns of new messages: poll (claim again after
	// poll_interval) or change-stream (a change stream on the collection; needs a replica
	// set or sharded cluster; FerretDB v1 has none).
	Notify string `yaml:"notify"`
	// PollInterval is how long a consumer whose claim found nothing waits before the next
	// (with change-stream: the longest it waits for an event).
	PollInterval time.Duration `yaml:"poll_interval"`
	// Transaction makes each batch claim one multi-document transaction (find + deleteMany;
	// a competing consumer's transaction aborts on the write conflict and is retried), in
	// place of the claims collection. Needs a replica set or sharded cluster.
	Transaction bool `yaml:"transaction"`
	// Keep leaves the collection (and its remaining messages) after the run; the claims
	// collection is dropped either way.
	Keep bool `yaml:"keep"`
	// TLS connects with TLS: the CA that verifies the server, the client certificate a
	// server started with a CA file (net.tls.CAFile, FerretDB's --listen-tls-ca-file)
	// requires, the name the certificate must carry (default: each host of the url). Set
	// here, it replaces the url's tls* options, which must then be absent.
	TLS *driver.TLS `yaml:"tls"`
	// PasswordEnv names an environment variable holding the password of the url's user
	// (mongodb://user@host/?authSource=admin; SCRAM-SHA-256 or -1 as the server offers, or
	// the url's authMechanism), which replaces the url's password; the password itself never
	// appears in the scenario.
	PasswordEnv string `yaml:"password_env"`
	// PasswordFile is a file holding that password (one trailing line break ignored); not
	// with password_env.
	PasswordFile string `yaml:"password_file"`
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Database == "" {
		o.Database = "mqbench"
	}
	if o.WriteConcern == "" {
		o.WriteConcern = "1"
	}
	o.WriteConcern = strings.ToLower(strings.TrimSpace(o.WriteConcern))
	if o.InsertBatch == 0 {
		o.InsertBatch = 1
	}
	if o.Claim == "" {
		o.Claim = ClaimBatch
	}
	if o.ClaimBatch == 0 {
		o.ClaimBatch = 100
	}
	if o.Notify == "" {
		o.Notify = NotifyPoll
	}
	if o.PollInterval == 0 {
		o.PollInterval = 5 * time.Millisecond
	}
}

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	bad := func(field, msg string) { errs = append(errs, driver.FieldError{Field: field, Msg: msg}) }
	if err := checkDatabase(o.Database); err != nil {
		bad("database", err.Error())
	}
	if o.WriteConcern != "1" && o.WriteConcern != "majority" {
		bad("write_concern", "must be 1 or majority, got "+strconv.Quote(o.WriteConcern))
	}
	if o.InsertBatch < 1 || o.InsertBatch > 100000 {
		bad("insert_batch", "must be 1..100000 (MongoDB's maxWriteBatchSize), got "+strconv.Itoa(o.InsertBatch))
	}
	switch o.Claim {
	case ClaimBatch, ClaimOne:
	default:
		bad("claim", "must be batch or find-one-and-delete, got "+strconv.Quote(o.Claim))
	}
	if o.ClaimBatch < 1 || o.ClaimBatch > 10000 {
		bad("claim_batch", "must be 1..10000, got "+strconv.Itoa(o.ClaimBatch))
	}
	switch o.Order {
	case "", OrderID, OrderNatural: // "": chosen by Open for the server
	default:
		bad("order", "must be id or natural, got "+strconv.Quote(o.Order))
	}
	switch o.Notify {
	case NotifyPoll, NotifyChangeStream:
	default:
		bad("notify", "must be poll or change-stream, got "+strconv.Quote(o.Notify))
	}
	if o.PollInterval < 100*time.Microsecond || o.PollInterval > 10*time.Second {
		bad("poll_interval", "must be 100us..10s, got "+o.PollInterval.String())
	}
	if o.Transaction && o.Claim != ClaimBatch {
		bad("transaction", "needs claim: batch (find-one-and-delete is one atomic command already)")
	}
	errs = append(errs, o.TLS.Validate("tls")...)
	return append(errs, o.password().Check()...)
}

// password is where the scenario says the password comes from.
func (o *Options) password() driver.SecretSource {
	return driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv, FileField: "password_file", File: o.PasswordFile}
}

// AckMode says what publish latency waits for: the insert's write concern.
func (o *Options) AckMode() driver.AckMode {
	m := "w:" + o.WriteConcern
	if o.Journal {
		m += ",j:true"
	}
	return driver.AckMode(m)
}
