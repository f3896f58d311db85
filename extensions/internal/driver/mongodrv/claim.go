package mongodrv

import (
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

// claimOne: findOneAndDelete of the oldest message. On MongoDB one command, atomic: two
// consumers never get one message. FerretDB v1 runs it as a read, then a delete by _id, and
// answers with the document whether or not its delete removed it: two consumers can both get
// one message (duplicates, no loss). It also sorts the whole collection in memory each time.
func (c *consumer) claimOne(ctx context.Context, deliver driver.Delivery) (bool, error) {
	o := options.FindOneAndDelete()
	if c.d.opts.Order == OrderID {
		o.SetSort(byID)
	}
	raw, err := c.coll.FindOneAndDelete(ctx, bson.D{}, o).Raw()
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
	if c.d.opts.Order == OrderID {
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

// claimBatch: find the oldest claim_batch messages, insert each one's _id into the claims
// collection (unordered: a duplicate-key error means another consumer claimed that message
// first), deliver the messages this consumer won, then delete them by _id. Exactly one
// consumer delivers each message, on MongoDB and on FerretDB alike: both enforce a unique
// _id (FerretDB: a PostgreSQL unique index). Claims stay until Teardown drops the claims
// collection (one small document per message).
//
// A message this consumer lost is deleted by its winner. One it lost in two rounds in a row is
// still there a poll interval after the winner claimed it: the winner died between claim and
// delete (it had delivered the message, or never will), so this consumer deletes it, lest it
// block the head of the queue. A round that won nothing ends like an empty one (the next waits
// poll_interval): the others are working on the head.
func (c *consumer) claimBatch(ctx context.Context, deliver driver.Delivery) (bool, error) {
	docs, bytes, err := c.find(ctx)
	if err != nil || len(docs) == 0 {
		c.prevLost = nil
		return false, err
	}
	ids := make([]any, len(docs))
	claims := make([]any, len(docs))
	for i, d := range docs {
		id := d.Lookup("_id")
		ids[i] = id
		claims[i] = bson.D{{Key: "_id", Value: id}}
	}
	lost, err := c.insertClaims(ctx, claims)
	if err != nil {
		return false, err
	}
	now := time.Now()
	del := make([]any, 0, len(docs))
	var lostNow map[string]bool
	for i, d := range docs {
		if lost[i] {
			key := string(d.Lookup("_id").Value)
			if c.prevLost[key] {
				del = append(del, ids[i]) // its winner is gone
				continue
			}
			if lostNow == nil {
				lostNow = map[string]bool{}
			}
			lostNow[key] = true
			continue
		}
		p, err := payload(d)
		if err != nil {
			return false, err
		}
		deliver(p, now)
		del = append(del, ids[i])
	}
	c.prevLost = lostNow
	full := len(docs) == c.d.opts.ClaimBatch || bytes >= maxClaimBytes
	if len(del) > 0 {
		if err := c.deleteIDs(ctx, del); err != nil {
			return false, err
		}
	}
	return full && len(lost) < len(docs), nil
}

// deleteIDs deletes the messages with these _ids: one delete {_id: {$in: ids}}, through
// MongoDB's _id index. FerretDB v1 runs it by reading the whole collection and filtering in
// memory (it pushes only equality down to PostgreSQL), then deletes the matches in one
// statement: its cost grows with the backlog, shared by the claim_batch messages of a round.
// (Single-document deletes by _id, which FerretDB does push down, cost one PostgreSQL commit
// each: slower unless the backlog is dozens of batches long.)
func (c *consumer) deleteIDs(ctx context.Context, ids []any) error {
	_, err := c.coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}})
	if err != nil {
		return c.d.wrap(fmt.Sprintf("consumer %d: delete", c.id), err)
	}
	return nil
}

// dupKey is MongoDB's (and FerretDB's) duplicate key error code.
const dupKey = 11000

// insertClaims inserts the claims unordered; lost marks the ones another consumer holds.
func (c *consumer) insertClaims(ctx context.Context, claims []any) (lost map[int]bool, err error) {
	_, err = c.claims.InsertMany(ctx, claims, options.InsertMany().SetOrdered(false))
	if err == nil {
		return nil, nil
	}
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		return nil, c.d.wrap(fmt.Sprintf("consumer %d: claim", c.id), err)
	}
	lost = make(map[int]bool, len(bwe.WriteErrors))
	for _, we := range bwe.WriteErrors {
		if we.Code != dupKey {
			return nil, c.d.wrap(fmt.Sprintf("consumer %d: claim", c.id), err)
		}
		lost[we.Index] = true
	}
	return lost, nil
}

// claimTxn (transaction: true; a replica set or sharded cluster): find the oldest
// claim_batch messages and delete them in one transaction, delivering after the commit. A
// competing consumer that deleted one of them first makes this transaction's delete fail
// with a write conflict (TransientTransactionError): WithTransaction runs it again.
func (c *consumer) claimTxn(ctx context.Context, deliver driver.Delivery) (bool, error) {
	var docs []bson.Raw
	var bytes int
	_, err := c.sess.WithTransaction(ctx, func(tx context.Context) (any, error) {
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
	for _, d := range docs {
		p, err := payload(d)
		if err != nil {
			return false, err
		}
		deliver(p, now)
	}
	return len(docs) == c.d.opts.ClaimBatch || bytes >= maxClaimBytes, nil
}

// payload is a message document's p (binary).
func payload(d bson.Raw) ([]byte, error) {
	_, p, ok := d.Lookup("p").BinaryOK()
	if !ok {
		return nil, fmt.Errorf("mongodb: document %v has no binary field p: not a message mqbench queued", d.Lookup("_id"))
	}
	return p, nil
}
