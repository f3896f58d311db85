// Package mongodrv is mqbench's MongoDB driver: a queue built on one collection of a MongoDB
// database (go.mongodb.org/mongo-driver/v2). A producer inserts one document per message
// (InsertOne with the write concern of option write_concern/journal; publish latency is the
// time to that acknowledgement); consumers take the oldest documents and delete them: a batch
// claim (option claim: batch) or findOneAndDelete (claim: find-one-and-delete). An idle
// consumer polls (poll_interval) or, on a replica set, waits for a change stream's insert
// event (notify: change-stream).
//
// Every publisher and consumer is its own client (its own connection), so "producers: 25"
// is 25 connections. A message is {_id: ObjectID made by the producer (time, then a counter:
// send order), p: payload, k: key}. With insert_batch above 1 a publisher commits in groups:
// Send returns at once and one ordered insertMany carries what was queued meanwhile, so
// publish latency includes the wait for the insert before it.
//
// Delivery: with claim: batch each message reaches exactly one consumer: a consumer wins a
// message by inserting its _id into <collection>.claims, whose unique _id lets one insert
// succeed; it delivers what it won, then deletes it (a message whose winner died before its
// delete is deleted by the next consumer that finds it twice). A consumer that dies between
// claim and delivery loses what it claimed (at most once for consumer crashes; the server's
// own crash loses nothing acknowledged); one that is closed delivers what it claimed first,
// so closing a consumer at any moment loses and duplicates nothing. With transaction: true (replica sets only) the claim
// is find + deleteMany in one transaction instead. With claim: find-one-and-delete MongoDB
// deletes and returns one message atomically; FerretDB v1 does not (below).
//
// Setup creates the collection and the claims collection (the _id index serves the sort: no
// other index); Teardown drops the claims collection, and the collection unless keep.
//
// TLS is the common tls block (the CA, a client certificate, the server name); a user named
// in the url authenticates with SCRAM (or the url's authMechanism) and the password from the
// url, password_env or password_file, which no message repeats. A server that refuses this
// client's TLS or credentials is a refusal (exit 113), not an unreachable server.
//
// Tested only on FerretDB v1.24.0 on PostgreSQL 15, the stand-in the project can install (no
// MongoDB server installs on its machines): results there are FerretDB's on PostgreSQL, never
// MongoDB's. Open reads buildInfo and names the server (FerretDB's ferretdbVersion) in its
// errors. What that leaves untested or different:
//   - notify: change-stream and transaction: true: never run (FerretDB v1 has neither; Open
//     refuses them there, and on a standalone MongoDB, naming the server).
//   - write_concern majority and journal: accepted by FerretDB and ignored: every write it
//     acknowledges is a committed PostgreSQL transaction.
//   - claim: find-one-and-delete: FerretDB reads the document, deletes it by _id and returns
//     it whether or not its delete removed it, so two consumers often get the same message
//     (duplicates, counted by the ledger; no loss); MongoDB's command is atomic.
//   - cost: FerretDB pushes only equality filters (and, without sort or filter, LIMIT) down
//     to PostgreSQL: a sort by _id (order: id, findOneAndDelete) streams the whole collection
//     into FerretDB for every claim, so there order defaults to natural (PostgreSQL's heap
//     order: roughly insertion order, reordering counted by the ledger), and the consumers
//     delete by single _id (one PostgreSQL commit each, a few commands at once) rather than
//     with {_id: {$in: …}}, which would stream the whole collection too. Long scans beside
//     concurrent inserts left FerretDB 1.24 with its whole PostgreSQL pool stuck mid-scan
//     (a hang until restart) in this project's runs. Each insert or insertMany is one
//     PostgreSQL commit.
//   - BrokerStats: Backlog is countDocuments on MongoDB; on FerretDB collStats' count
//     (PostgreSQL's row estimate after ANALYZE), as its count reads every document; no CPU or
//     memory either way.
package mongodrv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
)

const (
	// selectTimeout bounds finding a usable server (connect + hello), so an unreachable one
	// is reported quickly.
	selectTimeout = 2 * time.Second
	// opTimeout bounds one administrative command (create, drop, count).
	opTimeout = 10 * time.Second
)

// Open connects an administrative client, checks that the server answers (ping, buildInfo,
// hello) and that it can do what the options ask, and returns the run's driver.
func Open(ctx context.Context, cfg driver.Config) (driver.Driver, error) {
	o, err := driver.Prepared[Options]("mongodb", cfg.Options)
	if err != nil {
		return nil, err
	}
	if cfg.Destination == "" {
		return nil, errors.New("mongodb: destination (collection) is empty")
	}
	if err := checkCollection(cfg.Destination, o); err != nil {
		return nil, fmt.Errorf("mongodb: %w", err)
	}
	if strings.EqualFold(strings.TrimSpace(cfg.URL), "embedded") {
		return nil, errors.New(`mongodb: url "embedded" is only supported by the nats broker; give a mongodb:// URL`)
	}
	if err := checkURL(cfg.URL); err != nil {
		return nil, fmt.Errorf("mongodb: %w", err)
	}
	if cfg.Subscriptions > 1 {
		return nil, fmt.Errorf("mongodb: %d subscriptions are not supported (one collection, consumers share it)", cfg.Subscriptions)
	}
	d := &mongoDriver{cfg: cfg, opts: o, url: strings.TrimSpace(cfg.URL), addr: strings.Join(hosts(cfg.URL), ",")}
	d.admin, err = d.connect(ctx, "open")
	if err != nil {
		return nil, err
	}
	if err := d.identify(ctx); err != nil {
		_ = d.admin.Disconnect(context.Background())
		return nil, err
	}
	return d, nil
}

type mongoDriver struct {
	cfg   driver.Config
	opts  *Options
	url   string
	addr  string // the url's hosts, for messages (no credentials)
	admin *mongo.Client
	// server names what answered, for messages: "MongoDB 7.0.5" or "FerretDB v1.24.0
	// (MongoDB 7.0.42 protocol)".
	server     string
	ferret     bool
	order      string // option order, or the server's default for it
	replicaSet bool   // hello named a set (or a mongos answered): transactions and change streams can work

	mu        sync.Mutex
	closeOnce sync.Once
}

var _ driver.Identifier = (*mongoDriver)(nil)

// Server is what buildInfo said: "MongoDB 7.0.5", or "FerretDB v1.24.0 (MongoDB 7.0.42
// protocol)" (FerretDB does not name its backend: the project runs it on PostgreSQL).
func (d *mongoDriver) Server(context.Context) string { return d.server }

// connect opens one client (one connection pool) and pings it; an unreachable server is an
// *driver.UnreachableError naming the url's hosts.
func (d *mongoDriver) connect(ctx context.Context, what string) (*mongo.Client, error) {
	wc := writeconcern.W1()
	if d.opts.WriteConcern == "majority" {
		wc = writeconcern.Majority()
	}
	if d.opts.Journal {
		j := true
		wc.Journal = &j
	}
	co := options.Client().ApplyURI(d.url).
		SetAppName("mqbench").
		SetServerSelectionTimeout(selectTimeout).
		SetConnectTimeout(selectTimeout).
		SetWriteConcern(wc).
		// A failed insert or claim is reported, not retried behind the run's back: a retried
		// insert whose first attempt was applied would be a duplicate the ledger should see.
		SetRetryWrites(false)
	if err := d.opts.applySecurity(co, d.url); err != nil {
		return nil, err
	}
	c, err := mongo.Connect(co)
	if err != nil {
		return nil, fmt.Errorf("mongodb: %s: %s", what, redact.Text(err.Error(), d.url))
	}
	pctx, cancel := context.WithTimeout(ctx, selectTimeout+time.Second)
	defer cancel()
	if err := c.Ping(pctx, nil); err != nil {
		_ = c.Disconnect(context.Background())
		return nil, d.wrap(what, err)
	}
	return c, nil
}

// wrap turns a client error into the driver's: unreachable (no server selected, network
// error) or the server's answer, with the url's credentials removed.
func (d *mongoDriver) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	var ae *auth.Error
	if errors.As(err, &ae) {
		// The client's message names neither the user nor the server.
		return fmt.Errorf("mongodb: authentication failed for user %q at %s: %s", urlUser(d.url), d.addr, redact.Text(ae.Error(), d.url))
	}
	if te := tlsRefusal(d.opts.TLS != nil, err); te != nil {
		return fmt.Errorf("mongodb: %s: TLS refused: %s", d.addr, redact.Text(te.Error(), d.url))
	}
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) || mongo.IsNetworkError(err) || driver.IsUnreachable(err) {
		return &driver.UnreachableError{Broker: "mongodb", Address: d.addr, Err: errors.New(redact.Text(err.Error(), d.url))}
	}
	name := "mongodb"
	if d.server != "" {
		name += " (" + d.server + ")"
	}
	return fmt.Errorf("%s: %s: %s", name, what, redact.Text(err.Error(), d.url))
}

// identify reads buildInfo (FerretDB adds ferretdbVersion) and hello (setName, msg for a
// mongos) and refuses options the server cannot serve.
func (d *mongoDriver) identify(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	var bi struct {
		Version  string `bson:"version"`
		FerretDB string `bson:"ferretdbVersion"`
	}
	if err := d.admin.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&bi); err != nil {
		return d.wrap("buildInfo", err)
	}
	d.server = "MongoDB " + bi.Version
	if bi.FerretDB != "" {
		d.ferret = true
		d.server = "FerretDB " + bi.FerretDB + " (MongoDB " + bi.Version + " protocol)"
	}
	var hello struct {
		SetName string `bson:"setName"`
		Msg     string `bson:"msg"`
	}
	if err := d.admin.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return d.wrap("hello", err)
	}
	d.replicaSet = hello.SetName != "" || hello.Msg == "isdbgrid"
	switch d.order = d.opts.Order; {
	case d.order != "":
	case d.ferret:
		d.order = OrderNatural
	default:
		d.order = OrderID
	}
	switch {
	case d.ferret && d.opts.Notify == NotifyChangeStream:
		return fmt.Errorf("mongodb: notify: change-stream: %s has no change streams; use notify: poll", d.server)
	case d.ferret && d.opts.Transaction:
		return fmt.Errorf("mongodb: transaction: true: %s has no multi-document transactions; use transaction: false (the claims collection)", d.server)
	case !d.replicaSet && d.opts.Notify == NotifyChangeStream:
		return fmt.Errorf("mongodb: notify: change-stream needs a replica set or sharded cluster; %s at %s is a standalone server", d.server, d.addr)
	case !d.replicaSet && d.opts.Transaction:
		return fmt.Errorf("mongodb: transaction: true needs a replica set or sharded cluster; %s at %s is a standalone server", d.server, d.addr)
	}
	return nil
}

func (d *mongoDriver) db(c *mongo.Client) *mongo.Database { return c.Database(d.opts.Database) }

func (d *mongoDriver) claimsName() string { return d.cfg.Destination + claimsSuffix }

// Setup creates the collection (unless it exists) and the claims collection. The
// _id index every collection has serves the consumers' sort: no other index is needed.
func (d *mongoDriver) Setup(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	exists, err := d.exists(ctx, d.cfg.Destination)
	if err != nil {
		return err
	}
	if !exists {
		if err := d.db(d.admin).CreateCollection(ctx, d.cfg.Destination); err != nil && !isNamespaceExists(err) {
			return d.wrap("create collection "+d.cfg.Destination, err)
		}
	}
	if d.opts.Claim == ClaimBatch && !d.opts.Transaction {
		if err := d.db(d.admin).CreateCollection(ctx, d.claimsName()); err != nil && !isNamespaceExists(err) {
			return d.wrap("create collection "+d.claimsName(), err)
		}
	}
	return nil
}

// isNamespaceExists: code 48, another run (or consumer) created it first.
func isNamespaceExists(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == 48
}

// Teardown drops the claims collection, and the collection unless keep.
func (d *mongoDriver) Teardown(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	if err := d.db(d.admin).Collection(d.claimsName()).Drop(ctx); err != nil {
		return d.wrap("drop "+d.claimsName(), err)
	}
	if d.opts.Keep {
		return nil
	}
	if err := d.db(d.admin).Collection(d.cfg.Destination).Drop(ctx); err != nil {
		return d.wrap("drop "+d.cfg.Destination, err)
	}
	return nil
}

func (d *mongoDriver) exists(ctx context.Context, name string) (bool, error) {
	names, err := d.db(d.admin).ListCollectionNames(ctx, bson.D{{Key: "name", Value: name}})
	if err != nil {
		return false, d.wrap("listCollections", err)
	}
	return len(names) > 0, nil
}

// DestinationExists reports whether the collection exists (the conformance suite checks Setup
// and Teardown with it).
func (d *mongoDriver) DestinationExists(ctx context.Context) (exists, applicable bool, err error) {
	ok, err := d.exists(ctx, d.cfg.Destination)
	return ok, true, err
}

// Close disconnects the administrative client. Idempotent.
func (d *mongoDriver) Close() error {
	d.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = d.admin.Disconnect(ctx)
	})
	return nil
}

// NewPublisher opens publisher connection id (its own client), connected now so that a
// server gone since Open is reported here.
func (d *mongoDriver) NewPublisher(ctx context.Context, id int) (driver.Publisher, error) {
	c, err := d.connect(ctx, fmt.Sprintf("publisher %d", id))
	if err != nil {
		return nil, err
	}
	coll := d.db(c).Collection(d.cfg.Destination)
	if d.opts.InsertBatch > 1 {
		return newBatchPublisher(d, c, coll), nil
	}
	return &publisher{d: d, c: c, coll: coll}, nil
}

// NewConsumer opens consumer connection id (its own client); it claims from Start on.
func (d *mongoDriver) NewConsumer(ctx context.Context, id int) (driver.Consumer, error) {
	c, err := d.connect(ctx, fmt.Sprintf("consumer %d", id))
	if err != nil {
		return nil, err
	}
	return newConsumer(d, c, id), nil
}
