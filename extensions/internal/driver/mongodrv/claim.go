package mongodrv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// byID sorts oldest first: _id is an ObjectID made by the producer (time, then counter).
var byID = bson.D{{Key: "_id", Value: 1}}

// claim runs one claim round and delivers what it took. more says that the round took all it
// could (a full batch, or one message with find-one-and-delete): the next round starts at
// once instead of after poll_interval.
//
// ctx is cancelled by Close; the commands that take messages run on a context from held,
// which Close does not cancel, so that a round that took messages always delivers them.
func (c *consumer) claim(ctx context.Context, deliver driver.Delivery) (more bool, err error) {
	switch {
	case c.d.opts.Claim == ClaimOne:
		return c.claimOne(ctx, deliver)
	case c.d.opts.Transaction:
		return c.claimTxn(ctx, deliver)
	default:
		return c.claimBatch(ctx, deliver)
	}
}

// held is the context of a round's commands from the one that takes messages (a claim insert,
// a claim transaction, findOneAndDelete) to their delivery and delete. Close does not cancel
// it: a command cancelled in flight may have been applied all the same (the server never
// hears of the cancel), and a message taken but never delivered is lost; waiting for the
// answer costs Close at most a round trip, or roundTimeout on a server that stopped answering.
func held(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), roundTimeout)
}

// claimOne: findOneAndDelete of the oldest message. On MongoDB one command, atomic: two
// consumers never get one message. FerretDB v1 runs it as a read, then a delete by _id, and
// answers with the document whether or not its delete removed it: two consumers can both get
// one message (duplicates, no loss). It also sorts the whole collection in memory each time.
func (c *consumer) claimOne(ctx context.Context, deliver driver.Delivery) (bool, error) {
	o := options.FindOneAndDelete()
	if c.d.order == OrderID {
		o.SetSort(byID)
	}
	hctx, cancel := held(ctx)
	defer cancel()
	raw, err := c.coll.FindOneAndDelete(hctx, bson.D{}, o).Raw()
	now := time.Now()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return false, nil
	}
	if err != nil {
		return false, c.d.wrap(fmt.Sprintf("consumer %d: findOneAndDelete", c.id), err)
	}
	p, err := payload(raw)
	if err != nil {
		return false, err
	}
	deliver(p, now)
	return true, nil
}

// maxClaimBytes bounds what one claim round holds in memory: with 1MB messages a batch of
// 100 would be 100 MB. The round stops reading there; the rest stay for the next round.
const maxClaimBytes = 16 << 20

// find reads up to claim_batch of the oldest messages (whole documents: _id and payload), and
// no more than maxClaimBytes of them; bytes is what it read.
func (c *consumer) find(ctx context.Context) (docs []bson.Raw, bytes int, err error) {
	n := c.d.opts.ClaimBatch
	o := options.Find().SetLimit(int64(n)).SetBatchSize(int32(min(n, 1000)))
	if c.d.order == OrderID {
		o.SetSort(byID)
	}
	cur, err := c.coll.Find(ctx, bson.D{}, o)
	if err != nil {
		return nil, 0, c.d.wrap(fmt.Sprintf("consumer %d: find", c.id), err)
	}
	defer cur.Close(context.Background())
	docs = make([]bson.Raw, 0, min(n, 1000))
	for bytes < maxClaimBytes && cur.Next(ctx) {
		docs = append(docs, append(bson.Raw(nil), cur.Current...)) // Current is reused
		bytes += len(cur.Current)
	}
	if err := cur.Err(); err != nil {
		return nil, 0, c.d.wrap(fmt.Sprintf("consumer %d: find", c.id), err)
	}
	return docs, bytes, nil
}

// claimTxn (transaction: true; a replica set or sharded cluster): find the oldest
// claim_batch messages and delete them in one transaction, delivering after the commit. A
// competing consumer that deleted one of them first makes this transaction's delete fail
// with a write conflict (TransientTransactionError): WithTransaction runs it again.
func (c *consumer) claimTxn(ctx context.Context, deliver driver.Delivery) (bool, error) {
	var docs []bson.Raw
	var bytes int
	hctx, cancel := held(ctx)
	defer cancel()
	_, err := c.sess.WithTransaction(hctx, func(tx context.Context) (any, error) {
		var err error
		if docs, bytes, err = c.find(tx); err != nil || len(docs) == 0 {
			return nil, err
		}
		ids := make([]any, len(docs))
		for i, d := range docs {
			ids[i] = d.Lookup("_id")
		}
		res, err := c.coll.DeleteMany(tx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
		if err != nil {
			return nil, err
		}
		if res.DeletedCount != int64(len(ids)) { // cannot happen under snapshot isolation
			return nil, fmt.Errorf("deleted %d of %d messages found in the transaction", res.DeletedCount, len(ids))
		}
		return nil, nil
	})
	if err != nil {
		return false, c.d.wrap(fmt.Sprintf("consumer %d: claim transaction", c.id), err)
	}
	now := time.Now()
	var bad error
	for _, d := range docs {
		p, err := payload(d)
		if err != nil { // not a message: the others are delivered all the same
			bad = cmp.Or(bad, err)
			continue
		}
		deliver(p, now)
	}
	return len(docs) == c.d.opts.ClaimBatch || bytes >= maxClaimBytes, bad
}

// payload is a message document's p (binary).
func payload(d bson.Raw) ([]byte, error) {
	_, p, ok := d.Lookup("p").BinaryOK()
	if !ok {
		return nil, fmt.Errorf("mongodb: document %v has no binary field p: not a message mqbench queued", d.Lookup("_id"))
	}
	return p, nil
}
