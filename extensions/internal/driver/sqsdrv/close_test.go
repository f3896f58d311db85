package sqsdrv

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// TestCloseMidStream: while a publisher sends a paced stream, consumers are started and closed
// one after another, then a last consumer drains. With the default 30 s visibility timeout,
// a message delivered and not deleted, or taken by a poll and neither delivered nor handed
// back, stays in flight far beyond the test: every message must arrive exactly once, none
// after its consumer's Close returned, and the queue (visible and in flight) end empty within
// seconds.
func TestCloseMidStream(t *testing.T) {
	url := sqsURL(t)
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts *Options
		fifo bool
	}{
		{name: "standard", opts: &Options{}},
		{name: "fifo", opts: &Options{FIFO: true}, fifo: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n, rate = 300, 200
			tc.opts.Defaults()
			dest := unique("close")
			if tc.fifo {
				dest += ".fifo"
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := Open(ctx, driver.Config{URL: url, Destination: dest, Options: tc.opts, RunID: dest})
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
			var all []*consumer
			var late []int            // consumers that delivered after their Close returned
			var slowest time.Duration // the longest Close
			// open starts consumer i; its close function returns once Close did.
			open := func(i int) (closeFn func()) {
				c, err := d.NewConsumer(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				all = append(all, c.(*consumer))
				var closed atomic.Bool
				if err := c.Start(ctx, func(v []byte, _ time.Time) {
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
					c.Close()
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
					a, err := p.Send(ctx, driver.Message{Value: binary.LittleEndian.AppendUint64(nil, uint64(i))})
					if err == nil {
						err = a.Wait(ctx)
					}
					if err != nil {
						sent <- err
						return
					}
				}
				sent <- nil
			}()

			// Consumers live 20-120 ms each until the stream has been sent: their Close
			// lands while polls are answering and receipts are being queued.
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
			stats := d.(driver.BrokerStats)
			var left int64
			for deadline := time.Now().Add(10 * time.Second); ; {
				st, err := stats.BrokerStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				left = st.Backlog
				if left == 0 && got.Load() >= n || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
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
			var released int64
			for _, c := range all {
				released += c.released.Load()
			}
			t.Logf("%d messages, %d consumers closed mid-stream (%d deliveries before the drain, %d handed back after Close): %d lost, %d duplicated, %d left in the queue; slowest Close %v",
				n, closes, before, released, lost, dups, left, slowest.Round(time.Millisecond))
			if lost > 0 || dups > 0 || left > 0 {
				t.Errorf("closing consumers mid-stream: %d of %d not received, %d duplicated, %d left in the queue (visible or in flight)", lost, n, dups, left)
			}
			if len(late) > 0 {
				t.Errorf("consumers %v delivered after Close returned", late)
			}
		})
	}
}
