package itest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The overload conformance test (overload_test.go) on the brokers make test starts in phases of
// their own (scripts/test.sh phases): named so their phase runs them and the main itests skip
// them. Nothing else runs in a phase beside them, so they take no waiting-tier slot. The URL
// variables are the driver tests' (a private instance for a run by hand).

var (
	// batch_size 100: a consumer's DELETE … RETURNING takes up to 100 rows in a transaction
	// committed after their delivery, and until then the table still counts them.
	postgresOverload = overloadBroker{"postgres", "MQBENCH_POSTGRES_URL", postgresURL, 1000, 500, postgresDepth, 100, 0}
	// claim_batch 100: a round's messages stay in the collection until the round has delivered
	// them all and deleted them.
	mongoOverload = overloadBroker{"mongodb", "MQBENCH_MONGODB_URL", mongoURL, 400, 200, mongoDepth, 100, 0}
	// receivers 2 × receive_batch 10: received (not visible, still in the read) before their
	// delivery; delivered ones wait for a DeleteMessageBatch of up to 10, one at a time.
	sqsOverload = overloadBroker{"sqs", "MQBENCH_SQS_URL", "sqs://127.0.0.1:9424", 600, 300, sqsOverloadDepth, 30, 0}
)

// The three run side by side in their phase, after its latency-judged tests (go test starts
// parallel tests last): the consumers' pace is capped, so the overload needs no idle machine.
func TestPostgresOverload(t *testing.T) { k6Binary(t); t.Parallel(); overloadRun(t, postgresOverload) }

func TestMongoOverload(t *testing.T) { k6Binary(t); t.Parallel(); overloadRun(t, mongoOverload) }

func TestSQSOverload(t *testing.T) { k6Binary(t); t.Parallel(); overloadRun(t, sqsOverload) }

// postgresDepth: the queue table's rows (count(*)), those a consumer's open transaction has
// deleted included: they are gone only at its commit.
func postgresDepth(ctx context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	q := "SELECT count(*) FROM " + pgx.Identifier{"public", dest}.Sanitize()
	read := func(ctx context.Context) (int64, error) {
		var n int64
		err := c.QueryRow(ctx, q).Scan(&n)
		return n, err
	}
	return read, func() { _ = c.Close(context.Background()) }, nil
}

// mongoDepth: the collection's documents (countDocuments, database mqbench), claimed ones not
// yet deleted included. A collection that does not exist counts 0: the read is only taken in
// the drain, long after Setup created it.
func mongoDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	cl, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		return nil, nil, err
	}
	coll := cl.Database("mqbench").Collection(dest)
	read := func(ctx context.Context) (int64, error) { return coll.CountDocuments(ctx, bson.D{}) }
	return read, func() { _ = cl.Disconnect(context.Background()) }, nil
}

// sqsOverloadDepth: the queue's visible, in-flight (received, not yet deleted) and delayed
// messages (GetQueueAttributes' Approximate… counts, sqsDepth in sqs_test.go); ElasticMQ counts
// them from its queue, exactly.
func sqsOverloadDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	host, ok := strings.CutPrefix(url, "sqs://")
	if !ok {
		return nil, nil, fmt.Errorf("sqs url %q: want sqs://host:port", url)
	}
	return func(context.Context) (int64, error) { return sqsDepth(host, dest) }, func() {}, nil
}
