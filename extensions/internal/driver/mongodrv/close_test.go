package mongodrv

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestMongoCloseMidStream: while a publisher sends a paced stream, consumers are opened and
// closed one after another, each Close cutting in at once (closeWait 0: whatever command is in
// flight is cancelled if it may be), then a last consumer drains. Every message must arrive
// exactly once, none after its consumer's Close returned, and the collection end empty. Before
// claims were settled at Close, a claim insert cut off mid-flight was stored undelivered and
// the draining consumer deleted its message: lost.
func TestMongoCloseMidStream(t *testing.T) {
	url := mongoURL(t)
	for _, tc := range []struct {
		name  string
		batch int
	}{
		{name: "batch-1", batch: 1},
		{name: "batch-20", batch: 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n, rate = 300, 300
			o := &Options{ClaimBatch: tc.batch, PollInterval: time.Millisecond}
			o.Defaults()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: url, Destination: unique("close"), Options: o})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if err := d.Setup(ctx); err != nil {
				t.Fatal(err)
			}
			defer d.Teardown(context.Background())

			var mu sync.Mutex
			counts := make([]int, n)
			var got atomic.Int64
			var late []int            // consumers that delivered after their Close returned
			var slowest time.Duration // the longest Close
			// open starts consumer i; its close function returns once Close did.
			open := func(i int) (closeFn func()) {
				c, err := d.NewConsumer(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				mc := c.(*consumer)
				mc.closeWait = 0
				var closed atomic.Bool
				if err := mc.Start(ctx, func(v []byte, _ time.Time) {
					mu.Lock()
					if closed.Load() {
						late = append(late, i)
					}
					counts[binary.LittleEndian.Uint64(v)]++
					mu.Unlock()
					got.Add(1)
				}); err != nil {
					t.Fatal(err)
				}
				closeFn = func() {
					start := time.Now()
					mc.Close()
					closed.Store(true)
					mu.Lock()
					slowest = max(slowest, time.Since(start))
					mu.Unlock()
				}
				t.Cleanup(closeFn)
				return closeFn
			}

			p, err := d.NewPublisher(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			sent := make(chan error, 1)
			go func() {
				start := time.Now()
				for i := range n {
					time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / rate)))
					if _, err := p.Send(ctx, driver.Message{Value: binary.LittleEndian.AppendUint64(nil, uint64(i))}); err != nil {
						sent <- err
						return
					}
				}
				sent <- nil
			}()

			// Consumers live 20-120 ms each until the stream has been sent: their Close
			// lands at random points of a claim round.
			closes := 0
			for done := false; !done; closes++ {
				closeIt := open(closes)
				time.Sleep(time.Duration(20+rand.IntN(100)) * time.Millisecond)
				closeIt()
				select {
				case err := <-sent:
					if err != nil {
						t.Fatal(err)
					}
					done = true
				default:
				}
			}
			before := got.Load()
			closeDrain := open(closes)
			defer closeDrain()
			md := d.(*mongoDriver)
			coll := md.db(md.admin).Collection(md.cfg.Destination)
			deadline := time.Now().Add(10 * time.Second)
			for {
				left, err := coll.CountDocuments(ctx, bson.D{})
				if err != nil {
					t.Fatal(err)
				}
				if left == 0 && got.Load() >= n || time.Now().After(deadline) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond) // late duplicates
			left, err := coll.CountDocuments(ctx, bson.D{})
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			lost, dups := 0, 0
			for _, k := range counts {
				if k == 0 {
					lost++
				}
				dups += max(k-1, 0)
			}
			t.Logf("%d messages, %d consumers closed mid-stream (%d deliveries before the drain): %d lost, %d duplicated, %d left in the collection; slowest Close %v",
				n, closes, before, lost, dups, left, slowest.Round(time.Millisecond))
			if lost > 0 || dups > 0 || left > 0 {
				t.Errorf("closing consumers mid-stream: %d of %d lost, %d duplicated, %d left in the collection", lost, n, dups, left)
			}
			if len(late) > 0 {
				t.Errorf("consumers %v delivered after Close returned", late)
			}
		})
	}
}
