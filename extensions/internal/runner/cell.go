package runner

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// maxPending bounds the received-latency buffer waiting for the k6 consumer VU to pick it
// up (24 MB per cell); beyond it samples still reach the histograms and the ledger, only not
// k6 (counted in k6_samples_skipped). A variable so a test can make it small.
var maxPending = 1 << 20

// cellState is everything measured for one matrix cell.
type cellState struct {
	idx    int
	cell   scenario.Cell
	period time.Duration // intended time between iterations: batch / rate
	body   *payload.Source
	rr     atomic.Uint64 // round-robin over the cell's producers
	ledger *ledger.Ledger

	publish, e2e, e2eIntended, lag *hist.Hist

	// measured (after warm-up) counters
	sent, acked, errors, bytesSent       atomic.Uint64
	warmupSent                           atomic.Uint64
	received, bytesReceived, warmupRecvd atomic.Uint64
	sendWin, recvWin                     window
	tl                                   *timeline // sent / received per second (timeline.go)
	// process CPU time when the first measured message was sent, and when the cell was
	// finalized: what the generator (producers and consumers together) spent on the cell.
	cpuStart, cpuEnd atomic.Int64
	backlogMax       atomic.Int64
	drops            *dropEstimate

	mu        sync.Mutex
	pending   []Received
	k6Skipped uint64
	// acknowledgements measured by the producers' goroutines, waiting for the consumer VU
	pendingPub       []time.Duration
	pendingAcked     uint64
	pendingAckErrors uint64
	final            *ledger.Tally
	// interrupted: the run was stopped before this cell's drain ended.
	interrupted bool
}

// Received is one measured delivery, waiting to become k6 samples.
type Received struct {
	E2E, E2EIntended time.Duration
	Bytes            int
}

func newCell(idx int, c scenario.Cell, body *payload.Source) *cellState {
	return &cellState{
		idx: idx, cell: c, body: body,
		period:  time.Duration(math.Round(float64(c.Batch) * 1e9 / float64(c.Rate))),
		ledger:  ledger.New(c.Producers, c.Consumers),
		drops:   newDropEstimate(),
		publish: hist.New(), e2e: hist.New(), e2eIntended: hist.New(), lag: hist.New(),
		tl: newTimeline(c.Warmup + c.Duration + c.Drain),
	}
}

// window tracks the first and last event time (ns on the run clock) to turn counts into rates.
type window struct {
	mu          sync.Mutex
	first, last int64
	set         bool
}

func (w *window) add(ns int64) {
	w.mu.Lock()
	if !w.set || ns < w.first {
		w.first = ns
	}
	if !w.set || ns > w.last {
		w.last = ns
	}
	w.set = true
	w.mu.Unlock()
}

// rate is events per second over the window; a window shorter than one event period is
// widened to minSpan (the cell's nominal duration) so a handful of events cannot claim an
// absurd rate.
func (w *window) rate(n uint64, minSpan time.Duration) float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n == 0 || !w.set {
		return 0
	}
	span := time.Duration(w.last - w.first)
	if n > 1 {
		// n events over a span cover n-1 intervals; scale to n to avoid off-by-one bias.
		span = time.Duration(float64(span) * float64(n) / float64(n-1))
	}
	if span < minSpan/100 {
		span = minSpan
	}
	return float64(n) / span.Seconds()
}
