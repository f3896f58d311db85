package drivertest

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

// CloseMidStream is what a driver's close-mid-stream test gives RunCloseMidStream.
type CloseMidStream struct {
	N, Rate int // messages sent, paced at Rate a second
	// Opened is called with each consumer before it starts (a driver's test may shorten its
	// Close or keep it to count what it handed back); nil: nothing.
	Opened func(driver.Consumer)
	// Left reads what the broker still holds for the run (visible or in flight).
	Left func(context.Context) (int64, error)
	// Settle is waited once everything arrived and nothing is left, for late duplicates.
	Settle time.Duration
}

// CloseMidStreamResult is what the run saw, for the test's log line.
type CloseMidStreamResult struct {
	Closes, BeforeDrain int
	Lost, Duplicated    int
	Left                int64
	SlowestClose        time.Duration
}

// RunCloseMidStream: while a publisher sends a paced stream, consumers are started and closed
// one after another (each living 20-120 ms, so their Close lands at random points of a read),
// then a last consumer drains. Every message must arrive exactly once, none after its
// consumer's Close returned, and the broker hold nothing for the run at the end.
func RunCloseMidStream(t *testing.T, ctx context.Context, d driver.Driver, cm CloseMidStream) CloseMidStreamResult {
	t.Helper()
	var mu sync.Mutex
	counts := make([]int, cm.N)
	var got atomic.Int64
	var late []int            // consumers that delivered after their Close returned
	var slowest time.Duration // the longest Close
	// open starts consumer i; its close function returns once Close did.
	open := func(i int) (closeFn func()) {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if cm.Opened != nil {
			cm.Opened(c)
		}
		var closed atomic.Bool
		if err := c.Start(ctx, func(v []byte, _ time.Time) {
			mu.Lock()
			if closed.Load() {
				late = append(late, i)
			}
			if k := binary.LittleEndian.Uint64(v); k < uint64(len(counts)) {
				counts[k]++
			}
			mu.Unlock()
			got.Add(1)
		}); err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		closeFn = func() {
			once.Do(func() {
				start := time.Now()
				c.Close()
				closed.Store(true)
				mu.Lock()
				slowest = max(slowest, time.Since(start))
				mu.Unlock()
			})
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
		for i := range cm.N {
			time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(cm.Rate))))
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

	var r CloseMidStreamResult
	for done := false; !done; r.Closes++ {
		closeIt := open(r.Closes)
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
	r.BeforeDrain = int(got.Load())
	closeDrain := open(r.Closes)
	defer closeDrain()
	for deadline := time.Now().Add(10 * time.Second); ; {
		if r.Left, err = cm.Left(ctx); err != nil {
			t.Fatal(err)
		}
		if r.Left == 0 && got.Load() >= int64(cm.N) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if cm.Settle > 0 {
		time.Sleep(cm.Settle)
		if r.Left, err = cm.Left(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range counts {
		if k == 0 {
			r.Lost++
		}
		r.Duplicated += max(k-1, 0)
	}
	r.SlowestClose = slowest
	if r.Lost > 0 || r.Duplicated > 0 || r.Left > 0 {
		t.Errorf("closing consumers mid-stream: %d of %d not received, %d duplicated, %d left at the broker", r.Lost, cm.N, r.Duplicated, r.Left)
	}
	if len(late) > 0 {
		t.Errorf("consumers %v delivered after Close returned", late)
	}
	return r
}
