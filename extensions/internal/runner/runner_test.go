package runner

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

func embeddedScenario(cells ...scenario.Cell) *scenario.Scenario {
	o := &natsdrv.Options{Mode: "core"}
	o.Defaults()
	return &scenario.Scenario{
		Name:     "runner-test",
		Broker:   scenario.Broker{Type: "nats", URL: "embedded", Options: o},
		Workload: scenario.Workload{Destination: "runner.test", Payload: scenario.Payload{Content: "random"}},
		Cells:    cells,
	}
}

// Many VUs publishing at once through two producer connections: every message is counted
// once, each producer's sequence is gap-free, warm-up is kept apart, and latencies land in
// the right cell. Run with -race: this is the concurrency the k6 VUs create.
func TestConcurrentPublishIsCountedExactly(t *testing.T) {
	sc := embeddedScenario(
		scenario.Cell{ID: "c1", Size: 128, SizeLabel: "128B", Rate: 100000, Batch: 4, Producers: 2, Consumers: 1, Warmup: 50 * time.Millisecond, Duration: time.Second},
		scenario.Cell{ID: "c2", Size: 2048, SizeLabel: "2KB", Rate: 100000, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second},
	)
	sc.Samples = scenario.SamplesRaw // per-message samples asked for: received latencies wait for k6
	r := connected(t, sc)
	ctx := context.Background()

	const vus, itersPerVU = 8, 250
	start := time.Now().Add(-100 * time.Millisecond) // so early iterations are past the warm-up
	var wg sync.WaitGroup
	var mu sync.Mutex
	iter := uint64(0)
	for v := 0; v < vus; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < itersPerVU; i++ {
				mu.Lock()
				n := iter
				iter++
				mu.Unlock()
				res := r.Publish(ctx, 0, start, n)
				if res.Err != nil || res.Sent != 4 || res.Acked != 4 {
					t.Errorf("iteration %d: %+v", n, res)
					return
				}
				r.Publish(ctx, 1, start, n)
			}
		}()
	}
	wg.Wait()
	total := uint64(vus * itersPerVU)
	waitFor(t, func() bool {
		return r.cells[0].ledger.Tally().Unique == total*4 && r.cells[1].ledger.Tally().Unique == total
	})
	for i := range r.cells {
		r.finalize(i, false)
	}
	rep := r.Report()
	c1, c2 := rep.Cells[0], rep.Cells[1]
	if c1.Sent+c1.SentWarmup != total*4 || c1.Received+c1.ReceivedWarmup != total*4 {
		t.Errorf("c1: sent %d+%d received %d+%d, want %d", c1.Sent, c1.SentWarmup, c1.Received, c1.ReceivedWarmup, total*4)
	}
	if c1.Ledger.Lost != 0 || c1.Ledger.Duplicated != 0 || c1.Ledger.Issued != total*4 || c2.Ledger.Issued != total {
		t.Errorf("ledgers: c1 %+v c2 %+v", c1.Ledger, c2.Ledger)
	}
	if c1.E2ELatency.Count != int64(c1.Received) || c2.E2ELatency.Count != int64(c2.Received) {
		t.Errorf("latency counts %d/%d vs received %d/%d", c1.E2ELatency.Count, c2.E2ELatency.Count, c1.Received, c2.Received)
	}
	if c2.BytesReceived != c2.Received*2048 {
		t.Errorf("c2 bytes received %d for %d messages of 2KB", c2.BytesReceived, c2.Received)
	}
	if rep.Foreign != 0 {
		t.Errorf("%d foreign messages", rep.Foreign)
	}
	// Received latencies wait for the k6 consumer VU, cell by cell.
	if got := len(r.takeReceived(1, nil)); uint64(got) != c2.Received {
		t.Errorf("pending for c2: %d, want %d", got, c2.Received)
	}
}

// The intended send time comes from the schedule (start + iteration × batch/rate), so a late
// iteration shows its lateness as lag, and never a negative one.
func TestScheduleLag(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second})
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now().Add(-50 * time.Millisecond)
	// Iteration 0 was due 50 ms ago; iteration 1000 is due in 950 ms (a swapped number).
	if res := r.Publish(ctx, 0, start, 0); res.Lag < 50*time.Millisecond || res.Lag > time.Second {
		t.Errorf("late iteration: lag %v, want ≥ 50ms", res.Lag)
	}
	if res := r.Publish(ctx, 0, start, 1000); res.Lag != 0 {
		t.Errorf("early-numbered iteration: lag %v, want 0", res.Lag)
	}
}

// newRunner is a plain run's Runner for sc, on the schedules of sc's plan.
func newRunner(sc *scenario.Scenario, opts ...Option) (*Runner, error) {
	return New(plan.Build(sc, "test", 0), opts...)
}

// connected returns a Runner for sc with every connection open (opts given to Connect),
// closed when the test ends.
func connected(t *testing.T, sc *scenario.Scenario, opts ...Option) *Runner {
	t.Helper()
	r, err := newRunner(sc)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Connect(context.Background(), opts...); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background()) })
	return r
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for deliveries")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A k6 consumer VU that falls behind must not make the tool's memory grow without bound:
// the buffer stops at maxPending, and what did not fit is counted, not silently dropped.
// With aggregated samples (the default) nothing is kept per message for k6 at all.
func TestPendingIsBounded(t *testing.T) {
	defer func(old int) { maxPending = old }(maxPending)
	maxPending = 100
	for _, tc := range []struct {
		samples          string
		pending, skipped int
	}{{scenario.SamplesRaw, 100, 400}, {scenario.SamplesAggregated, 0, 0}} {
		sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 100000, Batch: 10, Producers: 1, Consumers: 1, Duration: time.Second})
		sc.Samples = tc.samples
		r := connected(t, sc)
		ctx := context.Background()
		start := time.Now().Add(-time.Second)
		for i := uint64(0); i < 50; i++ {
			r.Publish(ctx, 0, start, i)
		}
		waitFor(t, func() bool { return r.cells[0].received.Load() == 500 })
		if n := len(r.takeReceived(0, nil)); n != tc.pending {
			t.Errorf("%s: pending held %d samples, want %d", tc.samples, n, tc.pending)
		}
		if rep := r.Report(); rep.Cells[0].K6Skipped != uint64(tc.skipped) || rep.Cells[0].E2ELatency.Count != 500 {
			t.Errorf("%s: skipped %d (want %d), histogram count %d (want 500)", tc.samples, rep.Cells[0].K6Skipped, tc.skipped, rep.Cells[0].E2ELatency.Count)
		}
	}
}

// A 12-byte payload carries the compact header: counted exactly like the full one, with an
// end-to-end latency and no intended-time latency.
func TestCompactPayloads(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "tiny", Size: 12, SizeLabel: "12B", Rate: 100000, Batch: 10, Producers: 2, Consumers: 1, Duration: time.Second})
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now().Add(-time.Second)
	for i := uint64(0); i < 100; i++ {
		r.Publish(ctx, 0, start, i)
	}
	waitFor(t, func() bool { return r.cells[0].received.Load() == 1000 })
	r.finalize(0, false)
	c := r.Report().Cells[0]
	if c.Header != "compact" || c.Ledger.Unique != 1000 || c.Ledger.Lost != 0 || c.BytesReceived != 12000 {
		t.Errorf("header %s, ledger %+v, bytes %d", c.Header, c.Ledger, c.BytesReceived)
	}
	if c.E2ELatency.Count != 1000 || c.E2ELatency.P["p50"] <= 0 || c.E2EIntendedLatency.Count != 0 {
		t.Errorf("e2e %d (p50 %.1fus), intended %d", c.E2ELatency.Count, c.E2ELatency.P["p50"], c.E2EIntendedLatency.Count)
	}
	if r.Report().Foreign != 0 {
		t.Errorf("compact messages counted as foreign")
	}
}

// After k6 drops ticks, iteration numbers fall behind the schedule; the drop estimate puts
// intended times back on it, so neither the lag nor the warm-up is inflated for the rest of
// the cell.
func TestIntendedTimeSurvivesDrops(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 1000, Batch: 1, Producers: 1, Consumers: 1, Warmup: 200 * time.Millisecond, Duration: time.Second})
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now()
	// Iterations run on schedule, except that ticks 100..399 were dropped: from then on
	// iteration n runs at tick n+300. A starved test process runs its iterations late, which
	// the estimate rightly counts as lag: the bounds allow for the loop's own worst lateness.
	var last PublishResult
	var late time.Duration
	for n := uint64(0); n < 1400; n++ {
		tick := n
		if n >= 100 {
			tick = n + 300
		}
		due := start.Add(time.Duration(tick) * time.Millisecond)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		late = max(late, time.Since(due))
		last = r.Publish(ctx, 0, start, n)
	}
	if last.Warmup {
		t.Fatal("still in warm-up 1.7 s into a cell with a 200 ms warm-up")
	}
	if last.Lag > 50*time.Millisecond+late {
		t.Errorf("lag %v at the end (the loop was up to %v late): the 300 dropped ticks were not recovered (would be ~300ms)", last.Lag, late)
	}
	if d := r.cells[0].drops.dropped.Load(); d < 290 || d > 310+late.Milliseconds() {
		t.Errorf("estimated %d dropped ticks, want ~300 (the loop was up to %v late)", d, late)
	}
}

// An acknowledged mode (JetStream): iterations return without waiting, and the
// acknowledgements still arrive, each with its publish latency, in the cell they belong to.
func TestAcknowledgementsAreAwaitedOffTheIteration(t *testing.T) {
	o := &natsdrv.Options{Mode: "jetstream", Storage: "memory"}
	o.Defaults()
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 256, SizeLabel: "256B", Rate: 100000, Batch: 10, Producers: 2, Consumers: 1, Duration: time.Second})
	sc.Broker.Options = o
	sc.Samples = scenario.SamplesRaw
	r, err := newRunner(sc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := r.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now().Add(-time.Second)
	for i := uint64(0); i < 100; i++ {
		if res := r.Publish(ctx, 0, start, i); res.Sent != 10 || res.Acked != 0 || res.Errors != 0 {
			t.Fatalf("iteration %d: %+v (acked modes report acks later)", i, res)
		}
	}
	var got Acks
	waitFor(t, func() bool {
		a := r.takeAcks(0, nil)
		got.Acked += a.Acked
		got.Errors += a.Errors
		got.PublishLat = append(got.PublishLat, a.PublishLat...)
		return got.Acked == 1000
	})
	if got.Errors != 0 || len(got.PublishLat) != 1000 || got.PublishLat[0] <= 0 {
		t.Errorf("acks %+v", got)
	}
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if rep := r.Report(); rep.Cells[0].Acked != 1000 || rep.Cells[0].PublishLatency.Count != 1000 {
		t.Errorf("report: acked %d, publish latency count %d", rep.Cells[0].Acked, rep.Cells[0].PublishLatency.Count)
	}
}
