package mongodrv

import (
	"context"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// message is one queued message: _id made here (an ObjectID: seconds, a per-process random
// part and a counter, so the _id order of one process is its send order), the payload as
// binary, the key when the scenario sets one.
type message struct {
	ID  bson.ObjectID `bson:"_id"`
	P   []byte        `bson:"p"`
	Key []byte        `bson:"k,omitempty"`
}

// publisher (insert_batch 1) inserts one document per Send and waits for the write concern's acknowledgement,
// so the Ack is already resolved when Send returns (the driver has no asynchronous insert);
// a producer connection therefore sends at most 1 / (insert round trip) messages per second.
type publisher struct {
	d         *mongoDriver
	c         *mongo.Client
	coll      *mongo.Collection
	closeOnce sync.Once
}

var (
	_ driver.Publisher   = (*publisher)(nil)
	_ driver.ValueCopier = (*publisher)(nil)
)

// CopiesValue: the document is encoded onto the wire before InsertOne returns.
func (p *publisher) CopiesValue() bool { return true }

// newMessage gives the message its _id now, in send order.
func newMessage(m driver.Message) message {
	return message{ID: bson.NewObjectID(), P: m.Value, Key: m.Key}
}

func (p *publisher) Send(ctx context.Context, m driver.Message) (driver.Ack, error) {
	_, err := p.coll.InsertOne(ctx, newMessage(m))
	if err != nil {
		return nil, p.d.wrap("insert", err)
	}
	return driver.Done(nil), nil
}

func (p *publisher) Flush(context.Context) error { return nil }

// Close disconnects the publisher's client. Idempotent.
func (p *publisher) Close() error {
	p.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = p.c.Disconnect(ctx)
	})
	return nil
}
