package mongodrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// consumer is one client claiming from the collection in its own goroutine: a claim round
// (see claim.go) delivers what it took; when the round found the queue empty (or took less
// than a full batch) it waits poll_interval, or less when a change stream reports an insert.
// A failed round (server gone) is retried with driver.Backoff; the Go driver reconnects by
// itself.
type consumer struct {
	d      *mongoDriver
	c      *mongo.Client
	id     int
	coll   *mongo.Collection
	claims *mongo.Collection
	sess   *mongo.Session // transaction: true only

	wake chan struct{} // change stream: an insert happened (buffered 1)
	stop chan struct{}
	done chan struct{}

	mu        sync.Mutex // Start against Close
	running   bool       // loop started (cancel set)
	closed    bool
	cancel    context.CancelFunc
	closeOnce sync.Once
	// closeWait is how long Close lets a round finish before cancelling it: the constant, or
	// 0 in the close test (Close cuts in at once).
	closeWait time.Duration
	// errs counts failed claim rounds (kept for tests and messages).
	errs atomic.Int64
	// token names this consumer in its claims ("by").
	token string
	// prevLost holds the _ids (raw BSON value) this consumer lost to others in its previous
	// batch claim, uncertain those whose claim insert failed, with the _id (claimBatch; the
	// loop's goroutine uses them, then Close once the loop is over).
	prevLost  map[string]bool
	uncertain map[string]bson.RawValue
}

var _ driver.Consumer = (*consumer)(nil)

// closeWait is how long Close lets a claim round in flight finish before cancelling what of
// it can be cancelled (a round on a dead server).
const closeWait = 5 * time.Second

// roundTimeout bounds one claim round (and one insert): a server that stops answering on a
// connection shows up as a failed round, retried, not as a consumer that hangs for good.
const roundTimeout = 30 * time.Second

func newConsumer(d *mongoDriver, c *mongo.Client, id int) *consumer {
	db := d.db(c)
	return &consumer{
		d: d, c: c, id: id,
		coll:      db.Collection(d.cfg.Destination),
		claims:    db.Collection(d.claimsName()),
		token:     fmt.Sprintf("%s/%d", bson.NewObjectID().Hex(), id),
		closeWait: closeWait,
		wake:      make(chan struct{}, 1),
		stop:      make(chan struct{}),
		done:      make(chan struct{}),
	}
}

// Start opens the change stream (notify: change-stream) and the session (transaction: true),
// then starts claiming. Messages inserted before Start wait in the collection, so nothing is
// missed whenever Start returns.
func (c *consumer) Start(ctx context.Context, deliver driver.Delivery) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("mongodb: consumer closed")
	}
	if c.running {
		return errors.New("mongodb: consumer already started")
	}
	run, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	if c.d.opts.Transaction {
		s, err := c.c.StartSession()
		if err != nil {
			cancel()
			return c.d.wrap("start session", err)
		}
		c.sess = s
	}
	var cs *mongo.ChangeStream
	if c.d.opts.Notify == NotifyChangeStream {
		var err error
		if cs, err = c.watch(ctx); err != nil {
			cancel()
			return err
		}
	}
	c.running = true
	go c.loop(run, deliver, cs)
	return nil
}

// watch opens a change stream of the collection's inserts; only the event's arrival matters
// (the claim reads the documents), so the events carry nothing but their id.
func (c *consumer) watch(ctx context.Context) (*mongo.ChangeStream, error) {
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "insert"}}}},
		{{Key: "$project", Value: bson.D{{Key: "_id", Value: 1}}}},
	}
	cs, err := c.coll.Watch(ctx, pipeline)
	if err != nil {
		return nil, c.d.wrap("watch (notify: change-stream)", err)
	}
	return cs, nil
}

// follow turns change events into wake-ups until ctx ends, re-opening the stream after an
// error (a failover, a restarted server).
func (c *consumer) follow(ctx context.Context, cs *mongo.ChangeStream) {
	var b driver.Backoff
	for {
		opened := time.Now()
		for cs.Next(ctx) {
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
		_ = cs.Close(context.Background())
		b.Died(opened)
		for {
			if ctx.Err() != nil || !b.Sleep(c.stop) {
				return
			}
			var err error
			if cs, err = c.watch(ctx); err == nil {
				break
			}
		}
	}
}

func (c *consumer) loop(ctx context.Context, deliver driver.Delivery, cs *mongo.ChangeStream) {
	defer close(c.done)
	if cs != nil {
		go c.follow(ctx, cs)
	}
	var b driver.Backoff
	lastOK := time.Now()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-c.stop:
			return
		default:
		}
		rctx, cancel := context.WithTimeout(ctx, roundTimeout)
		more, err := c.claim(rctx, deliver)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			c.errs.Add(1)
			b.Died(lastOK)
			if !b.Sleep(c.stop) {
				return
			}
			continue
		}
		lastOK = time.Now()
		if more {
			continue
		}
		timer.Reset(c.d.opts.PollInterval)
		select {
		case <-c.stop:
			timer.Stop()
			return
		case <-c.wake:
			timer.Stop()
		case <-timer.C:
		}
	}
}

// Close stops claiming and disconnects the client. Idempotent. A round that has not yet taken
// messages is cancelled after closeWait; one that has finishes first (see held): what it took
// is delivered before Close returns, so closing at any moment loses and duplicates nothing.
// Claims whose insert failed and were never resolved are withdrawn (see release).
func (c *consumer) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		running := c.running
		c.mu.Unlock()
		close(c.stop)
		if running {
			t := time.NewTimer(c.closeWait)
			select {
			case <-c.done:
			case <-t.C:
				c.cancel()
				<-c.done
			}
			t.Stop()
			c.cancel()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c.release(ctx) // the loop is over: c.uncertain is Close's now
		if c.sess != nil {
			c.sess.EndSession(ctx)
		}
		_ = c.c.Disconnect(ctx)
	})
	return nil
}

// release deletes this consumer's claims among the uncertain ones (inserts whose answer never
// came, which may have been stored): a claim left behind would make the other consumers
// delete its message undelivered; without it, they claim the message as any other. Best
// effort: a server that cannot be reached now keeps them.
func (c *consumer) release(ctx context.Context) {
	if len(c.uncertain) == 0 {
		return
	}
	models := make([]mongo.WriteModel, 0, len(c.uncertain))
	for _, id := range c.uncertain {
		models = append(models, mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: id}, {Key: "by", Value: c.token}}))
	}
	_, _ = c.claims.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
}
