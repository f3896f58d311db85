package mongodrv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// claim is one claims-collection document: the message's _id, and the consumer that won it.
type claim struct {
	ID any    `bson:"_id"`
	By string `bson:"by"`
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
//
// A claim insert that failed (connection lost) may have been stored all the same: its
// messages are remembered as uncertain, and when a later round loses one of them, the claim's
// "by" says whether this consumer won it after all (then it is delivered now).
func (c *consumer) claimBatch(ctx context.Context, deliver driver.Delivery) (bool, error) {
	docs, bytes, err := c.find(ctx)
	if err != nil || len(docs) == 0 {
		if err == nil { // empty: nothing claimed is left
			c.prevLost, c.uncertain = nil, nil
		}
		return false, err
	}
	ids := make([]any, len(docs))
	claims := make([]any, len(docs))
	for i, d := range docs {
		id := d.Lookup("_id")
		ids[i] = id
		claims[i] = claim{ID: id, By: c.token}
	}
	// From the claim insert on, Close does not cancel the round (see held), and nothing
	// returns before every message this consumer won is delivered: a stored claim whose
	// message its winner never delivers is deleted undelivered by the next consumer that
	// loses it twice.
	if ctx.Err() != nil { // Close came: take nothing more
		return false, ctx.Err()
	}
	hctx, cancel := held(ctx)
	defer cancel()
	lost, err := c.insertClaims(hctx, claims)
	if err != nil {
		if c.uncertain == nil {
			c.uncertain = map[string]bson.RawValue{}
		}
		for _, d := range docs {
			id := d.Lookup("_id") // copied: it points into the whole document
			c.uncertain[string(id.Value)] = bson.RawValue{Type: id.Type, Value: slices.Clone(id.Value)}
		}
		return false, err
	}
	var bad error // reported once the round's messages are delivered and deleted
	mine := make([]bool, len(docs))
	del := make([]any, 0, len(docs))
	var lostNow map[string]bool
	for i, d := range docs {
		key := string(d.Lookup("_id").Value)
		if !lost[i] {
			mine[i] = true
			continue
		}
		won, err := c.wonEarlier(hctx, key, ids[i])
		switch {
		case err != nil:
			bad = cmp.Or(bad, err) // still uncertain: looked up again when lost again
		case won:
			mine[i] = true
		case c.prevLost[key]:
			del = append(del, ids[i]) // its winner is gone
		default:
			if lostNow == nil {
				lostNow = map[string]bool{}
			}
			lostNow[key] = true
		}
	}
	now := time.Now()
	won := 0
	for i, d := range docs {
		if !mine[i] {
			continue
		}
		delete(c.uncertain, string(d.Lookup("_id").Value))
		del = append(del, ids[i])
		p, err := payload(d)
		if err != nil { // not a message: deleted like one, reported
			bad = cmp.Or(bad, err)
			continue
		}
		deliver(p, now)
		won++
	}
	c.prevLost = lostNow
	full := len(docs) == c.d.opts.ClaimBatch || bytes >= maxClaimBytes
	if len(del) > 0 {
		if err := c.deleteIDs(hctx, del); err != nil {
			return false, err
		}
	}
	return full && won > 0 && bad == nil, bad
}

// wonEarlier: for a message whose claim this round lost, whether an earlier claim of this
// consumer whose answer never came (uncertain) was stored after all.
func (c *consumer) wonEarlier(ctx context.Context, key string, id any) (bool, error) {
	if _, ok := c.uncertain[key]; !ok {
		return false, nil
	}
	var cl claim
	err := c.claims.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&cl)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return false, c.d.wrap(fmt.Sprintf("consumer %d: read claim", c.id), err)
	}
	delete(c.uncertain, key)
	return cl.By == c.token, nil
}

// deleteIDs deletes the messages with these _ids. MongoDB: one delete {_id: {$in: ids}}
// through the _id index. FerretDB v1 pushes only equality filters down to PostgreSQL: it
// would run $in by streaming the whole collection from PostgreSQL and filtering in memory,
// and under load such long scans, beside concurrent inserts, left FerretDB 1.24 with every
// PostgreSQL connection of its pool stuck mid-scan (a hang until restart). So on FerretDB one
// unordered delete command of single-_id deletes: each uses PostgreSQL's _id index and is its
// own commit (about one commit per message; the cost does not grow with the backlog), the
// batch split over a few commands at once.
func (c *consumer) deleteIDs(ctx context.Context, ids []any) error {
	if !c.d.ferret {
		if _, err := c.coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
			return c.d.wrap(fmt.Sprintf("consumer %d: delete", c.id), err)
		}
		return nil
	}
	// Up to ferretDeleters commands at once, on as many connections of the consumer's
	// client: PostgreSQL flushes concurrent commits together.
	chunk := (len(ids) + ferretDeleters - 1) / ferretDeleters
	errs := make(chan error, ferretDeleters)
	n := 0
	for lo := 0; lo < len(ids); lo += chunk {
		part := ids[lo:min(lo+chunk, len(ids))]
		n++
		go func() {
			models := make([]mongo.WriteModel, len(part))
			for i, id := range part {
				models[i] = mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: id}})
			}
			_, err := c.coll.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
			errs <- err
		}()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return c.d.wrap(fmt.Sprintf("consumer %d: delete", c.id), first)
	}
	return nil
}

// ferretDeleters is how many delete commands a consumer runs at once on FerretDB.
const ferretDeleters = 4

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
