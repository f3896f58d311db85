package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/cpu"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/results"
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
	sched  plan.Schedule // when each iteration is due (its ticks: At, Latest, Next)
	body   payload.Body
	rr     atomic.Uint64 // round-robin over the cell's producers
	ledger *ledger.Ledger
	subs   int // subscriptions, each owed every message (fan-out); 1 without

	publish, e2e, e2eIntended, lag *hist.Hist

	// measured (after warm-up) counters
	sent, acked, errors, bytesSent       atomic.Uint64
	firstSendErr                         firstErr // the first of errors: what a user asks of a count
	warmupSent                           atomic.Uint64
	received, bytesReceived, warmupRecvd atomic.Uint64
	sendWin, recvWin                     window
	tl                                   *timeline // sent / received per second (timeline.go)
	// process CPU time when the first measured message was sent, and when the cell was
	// finalized: what the generator (producers and consumers together) spent on the cell.
	cpuStart, cpuEnd atomic.Int64
	backlog          backlogStats
	drops            *dropEstimate
	profileClock     *clockOffset             // a profile's clock start after the scenario's (drops.go)
	stages           *stageHists              // a profile's distributions per named stage (stagehists.go)
	sizes            *sizeClasses             // a size mix's counts and distributions per size (sizeclasses.go)
	partitions       []results.PartitionCount // what each partition took (partitions.go), set as it ends
	dests            destCounts               // what each destination's consumers received (destinations.go)
	// closed: the cell's drain ended (finalize). Later deliveries only count as late.
	closed atomic.Bool
	// settled: the ledger is frozen and reconciled with the broker (reconcile.go), so its
	// lost, unconfirmed and held counts are verdicts; judged only from then on, so no
	// threshold sees a loss the broker's answer is about to turn into held.
	settled atomic.Bool

	beginOnce sync.Once // interval histograms and logs started (second.go)
	// wall clock of the cell's first send (or consumer start) and of its finalize, for the
	// results' UTC windows (a distributed run's merge compares them across runners)
	startedAt, endedAt atomic.Pointer[time.Time]
	secMu              sync.Mutex  // guards sec
	sec                secondState // the consumer VU's per-second bookkeeping
	prog               progressAcc // since the last progress line (progress.go)

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

	pacing cellPacing  // its schedule in the process's pacer (pacing.go)
	faults cellFaults  // what the scenario's faults did in this cell (faults.go)
	loop   closedLoop  // rate: max only (closedloop.go)
	drain  *drainState // backlog build-and-drain cells only (backlogdrain.go)
	broker brokerSide  // the broker's own view, sampled while the cell runs (brokerstats.go)
}

// Received is one measured delivery, waiting to become k6 samples.
type Received struct {
	E2E, E2EIntended time.Duration
	Bytes            int
}

// newCell prepares a cell sending on sched whose messages are owed to subs subscriptions of
// consumers consumers each (the run's; a cell holding them back has c.Consumers 0).
func newCell(idx int, c scenario.Cell, sched plan.Schedule, body payload.Body, subs, consumers int) *cellState {
	l := ledger.NewFanOut(c.Producers, consumers*subs, subs)
	if c.Consumers == 0 {
		l.SetUnconsumed(true) // until a consume-only cell takes its messages (handoff.go)
	}
	return &cellState{
		idx: idx, cell: c, body: body, subs: subs,
		sched:        sched,
		ledger:       l,
		drops:        newDropEstimate(),
		profileClock: newClockOffset(),
		stages:       newStageHists(c),
		sizes:        newSizeClasses(c),
		publish:      hist.New(), e2e: hist.New(), e2eIntended: hist.New(), lag: hist.New(),
		tl: newTimeline(c.Warmup + c.Duration + c.Drain),
		drain: func() *drainState {
			if c.Backlog > 0 {
				return newDrainState(c.Backlog)
			}
			return nil
		}(),
	}
}

// markCPUStart takes the process CPU time at the cell's first measured send.
func (c *cellState) markCPUStart() {
	if c.cpuStart.Load() == 0 {
		c.cpuStart.CompareAndSwap(0, int64(cpu.Used()))
	}
}

// countSent adds what one iteration (fixed rate) or one message (closed loop) sent, at
// run-clock time at, to the cell's warm-up or measured counters.
func (c *cellState) countSent(res *PublishResult, warm bool, at int64) {
	c.tl.addSent(at, uint64(res.Sent))
	if warm {
		c.warmupSent.Add(uint64(res.Sent))
		return
	}
	c.sent.Add(uint64(res.Sent))
	c.acked.Add(uint64(res.Acked))
	c.errors.Add(uint64(res.Errors))
	c.bytesSent.Add(uint64(res.Bytes))
	c.sendWin.add(at)
}

// window tracks the first and last event time (ns on the run clock) to turn counts into rates.
// Every send and receipt updates it: atomics, not a lock (a lock was 1.8 % of the generator's
// CPU at 500,000 msg/s); the first event alone takes the lock, so first and last start alike.
type window struct {
	mu          sync.Mutex // the first add only
	first, last atomic.Int64
	set         atomic.Bool
}

func (w *window) add(ns int64) {
	if !w.set.Load() {
		w.mu.Lock()
		if !w.set.Load() {
			w.first.Store(ns)
			w.last.Store(ns)
			w.set.Store(true)
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
	for f := w.first.Load(); ns < f && !w.first.CompareAndSwap(f, ns); f = w.first.Load() {
	}
	for l := w.last.Load(); ns > l && !w.last.CompareAndSwap(l, ns); l = w.last.Load() {
	}
}

// bounds returns the first and last event time; ok is false before the first event.
func (w *window) bounds() (first, last int64, ok bool) {
	if !w.set.Load() {
		return 0, 0, false
	}
	return w.first.Load(), w.last.Load(), true
}

// rate is events per second over the window; a window shorter than one event period is
// widened to minSpan (the cell's nominal duration) so a handful of events cannot claim an
// absurd rate.
func (w *window) rate(n uint64, minSpan time.Duration) float64 {
	first, last, ok := w.bounds()
	if n == 0 || !ok {
		return 0
	}
	span := time.Duration(last - first)
	if n > 1 {
		// n events over a span cover n-1 intervals; scale to n to avoid off-by-one bias.
		span = time.Duration(float64(span) * float64(n) / float64(n-1))
	}
	if span < minSpan/100 {
		span = minSpan
	}
	return float64(n) / span.Seconds()
}

// backlogStats keeps the backlog samples of a cell: last, min, max overall, and the max of
// the current second (for the per-second k6 sample).
type backlogStats struct {
	mu                  sync.Mutex
	last, lo, hi, secHi int64
	seen, secSeen       bool
}

func (b *backlogStats) observe(v int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.seen || v < b.lo {
		b.lo = v
	}
	if !b.seen || v > b.hi {
		b.hi = v
	}
	if !b.secSeen || v > b.secHi {
		b.secHi = v
	}
	b.last, b.seen, b.secSeen = v, true, true
}

func (b *backlogStats) takeSecondMax() (int64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.secHi, b.secSeen
	b.secHi, b.secSeen = 0, false
	return v, ok
}

func (b *backlogStats) get() (last, lo, hi int64, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last, b.lo, b.hi, b.seen
}
