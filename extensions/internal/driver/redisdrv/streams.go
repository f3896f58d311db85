package redisdrv

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// streamConsumer reads the stream through the run's consumer group in one goroutine:
// XREADGROUP GROUP g <consumer> COUNT n BLOCK b STREAMS key >, delivers the batch, and
// acknowledges it with one XACK sent in the same pipeline as the next XREADGROUP (one round
// trip per batch).
//
// Recovery is the one Redis documents for consumers: entries Redis handed to this consumer
// whose reply never arrived (a broken connection, a timeout) wait in the consumer's pending
// entries list (PEL), and ">" never returns them again. So at Start and after every failed
// read the consumer first reads its own PEL (STREAMS key 0, then on from the last ID read,
// until it comes back empty), delivers what it has not delivered, acknowledges all of it, and
// only then reads ">" again. Entries left pending by a consumer of another process that died
// are not claimed (no XAUTOCLAIM): they stay pending in the group.
type streamConsumer struct {
	c        *redis.Client
	key      string
	group    string
	consumer string // consumerName: this connection's own PEL
	count    int64
	block    time.Duration
	loop
}

// consumerName names connection id's consumer in the group, uniquely: the runners of a shared
// destination join one group with the same connection ids, and a PEL drain must not read
// (and deliver again) entries another runner's consumer has delivered and not yet
// acknowledged.
func consumerName(id int) string { return fmt.Sprintf("consumer-%d-%012x", id, rand.Uint64()>>16) }

// Start begins reading. The group's position was fixed at Setup ("$"), so every entry added
// after Setup reaches the group whenever the read starts.
func (c *streamConsumer) Start(ctx context.Context, deliver driver.Delivery) error {
	if c.closed.Load() {
		return errors.New("redis: consumer closed")
	}
	if !c.started.CompareAndSwap(false, true) {
		return errors.New("redis: consumer already started")
	}
	go c.run(deliver)
	return nil
}

func (c *streamConsumer) run(deliver driver.Delivery) {
	defer close(c.done)
	ctx := context.Background()
	args := &redis.XReadGroupArgs{
		Group:    c.group,
		Consumer: c.consumer,
		Streams:  []string{c.key, ">"},
		Count:    c.count,
		Block:    c.block,
	}
	acks := unacked{limit: 2 * int(c.count)}
	pel := "0" // the ID the PEL drain reads after; "" once the PEL is drained (then ">")
	var wait time.Duration
	for !c.closed.Load() {
		args.Streams[1] = cmp.Or(pel, ">")
		pipe := c.c.Pipeline()
		var ack *redis.IntCmd
		if len(acks.ids) > 0 {
			ack = pipe.XAck(ctx, c.key, c.group, acks.ids...)
		}
		read := pipe.XReadGroup(ctx, args)
		_, _ = pipe.Exec(ctx)
		now := time.Now()
		if ack != nil {
			if ack.Err() != nil {
				// The entries may still be pending: their IDs stay, to be acknowledged with the
				// next read and not delivered again when a PEL drain meets them.
				c.errs.Add(1)
			} else {
				acks.ids = acks.ids[:0]
			}
		}
		err := read.Err()
		if errors.Is(err, redis.Nil) {
			continue // BLOCK expired without entries (">"; a PEL read answers at once)
		}
		if err != nil {
			if c.closed.Load() {
				return
			}
			c.errs.Add(1)
			if strings.HasPrefix(err.Error(), "NOGROUP") {
				// A Redis restarted without persistence forgot the group (and the stream).
				// Recreate it from the stream's start: everything in a stream born after the
				// restart was sent by this run after the outage. BUSYGROUP means another
				// consumer got there first.
				if gerr := c.c.XGroupCreateMkStream(ctx, c.key, c.group, "0").Err(); gerr == nil || strings.HasPrefix(gerr.Error(), "BUSYGROUP") {
					continue
				}
			} else {
				// Redis may have handed entries over before the reply was lost: they are in
				// this consumer's PEL now, where ">" never looks.
				pel = "0"
			}
			wait = backoff(wait)
			if !c.sleep(wait) {
				return
			}
			continue
		}
		wait = 0
		c.deliverBatch(read.Val(), &pel, &acks, deliver, now)
	}
	c.finish(acks.ids)
}

// deliverBatch hands a read's entries to deliver and queues their IDs for the next XACK. While
// draining the PEL it moves pel on to the last ID read, or to "" when the read came back
// empty; an entry whose XACK failed before was delivered already and is only acknowledged.
func (c *streamConsumer) deliverBatch(streams []redis.XStream, pel *string, acks *unacked, deliver driver.Delivery, now time.Time) {
	draining := *pel != ""
	var delivered map[string]struct{}
	if draining && len(acks.ids) > 0 {
		delivered = acks.set()
	}
	n, fresh := 0, 0
	for _, s := range streams {
		for _, m := range s.Messages {
			n++
			if _, ok := delivered[m.ID]; !ok {
				fresh++
			}
		}
	}
	if draining && n == 0 {
		*pel = ""
		return
	}
	acks.makeRoom(fresh)
	for _, s := range streams {
		for _, m := range s.Messages {
			if c.closed.Load() {
				return // not delivered, so not acknowledged either
			}
			if draining {
				*pel = m.ID
			}
			if _, ok := delivered[m.ID]; ok {
				continue
			}
			// An entry trimmed away (MAXLEN) while pending comes back without fields: there is
			// nothing to deliver, but acknowledging it clears the PEL.
			if v, ok := m.Values[field].(string); ok {
				deliver(bytesOf(v), now)
			}
			acks.ids = append(acks.ids, m.ID)
		}
	}
}

// finish acknowledges the last batch at Close and, when nothing is left pending for this
// consumer, removes it from the group: each connection is a new consumer (consumerName), which
// a group kept across runs would otherwise collect.
func (c *streamConsumer) finish(ids []string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if len(ids) > 0 && c.c.XAck(ctx, c.key, c.group, ids...).Err() != nil {
		return
	}
	pending, err := c.c.XPendingExt(ctx, &redis.XPendingExtArgs{
		Stream: c.key, Group: c.group, Start: "-", End: "+", Count: 1, Consumer: c.consumer,
	}).Result()
	if err == nil && len(pending) == 0 {
		_ = c.c.XGroupDelConsumer(ctx, c.key, c.group, c.consumer).Err()
	}
}

// Close stops reading (letting the current XREADGROUP finish and its batch be acknowledged
// when the broker answers in time), closes the connection and waits for the goroutine.
// Idempotent; does not block on a dead broker.
func (c *streamConsumer) Close() error {
	c.shutdown(c.block+500*time.Millisecond, func() { c.c.Close() })
	return nil
}

// unacked is the IDs of entries delivered and not yet known to be acknowledged, oldest first.
// An XACK that failed leaves its IDs here, sent again with the next read. It holds at most
// limit IDs (2 × read_count: the batch whose XACK failed and the batch read with it). Only an
// XACK refused again and again while reads succeed fills it; then the oldest IDs are
// forgotten rather than the consumer stopping: those entries stay pending, and a later PEL
// drain would deliver them once more (a duplicate in the ledger, not a silent loss).
type unacked struct {
	ids   []string
	limit int
}

// makeRoom forgets the oldest IDs so that n more fit.
func (u *unacked) makeRoom(n int) {
	if keep := max(0, u.limit-n); len(u.ids) > keep {
		u.ids = u.ids[:copy(u.ids, u.ids[len(u.ids)-keep:])]
	}
}

func (u *unacked) set() map[string]struct{} {
	s := make(map[string]struct{}, len(u.ids))
	for _, id := range u.ids {
		s[id] = struct{}{}
	}
	return s
}
