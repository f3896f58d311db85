// Package runner executes one scenario's measurement, independent of k6: it owns the broker
// driver, the producer and consumer connections, the clock, and each cell's ledger and
// histograms. RunCell drives each cell from start to end and hands what it measured to a Sink,
// which the k6 module implements to make samples.
package runner

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/cpu"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Runner is shared by every VU of one k6 process.
type Runner struct {
	sc      *scenario.Scenario
	spec    driver.Spec
	keys    *payload.Keys   // each message's key (payload.key)
	parts   partitionCounts // what each partition took per cell (partitions.go)
	runID   uint32
	epoch   time.Time // monotonic origin of every timestamp in headers
	cells   []*cellState
	ackMode driver.AckMode

	mu   sync.Mutex
	drv  driver.Driver   // the first destination's (faults, request-reply)
	drvs []driver.Driver // one per destination (workload.destinations)
	pubs []*producer
	cons []driver.Consumer
	// responders answer requests in a request-reply run (whose cons is empty: replies reach
	// deliver through the requesters, which are its pubs)
	responders []driver.Responder
	connected  bool
	closed     bool
	// stopProgress ends the progress line (progress.go), waiting for its last write.
	stopProgress func()
	// server is what the broker said it is (driver.Identifier), "" when it did not say; set
	// once by Connect, read by Report from another goroutine
	server atomic.Pointer[string]

	foreign atomic.Uint64 // deliveries without our header or from another run
	// gate, while set, holds every delivery back (a backlog cell building its backlog)
	gate atomic.Pointer[gate]
	// draining is the consume-only cell running now (handoff.go), nil otherwise
	draining atomic.Pointer[cellState]
	// openedAt is when the gate last opened (run clock, ns; 0: never)
	openedAt atomic.Int64
	// thr paces each consumer to the running cell's consumer_rate (throttle.go)
	thr *throttle

	// stampHeader: the stamp travels in the broker's message header (payload.stamp: header),
	// so a body is the payload alone and a delivery is stamp‖body (driver/stamp.go).
	stampHeader bool

	// raw: per-message k6 samples were asked for (scenario samples: raw); otherwise nothing
	// is kept per message for k6.
	raw        bool
	resultsDir string    // where interval logs go ("" = none)
	hlogErr    firstErr  // the first interval log that could not be written
	started    time.Time // Connect: the test run's clock for counter rates
	// destination overrides the scenario's (a distributed run's runner has its own).
	destination string
	// shared is set when the runner shares its destination with other runners (shared.go).
	shared *sharedState

	// statsMu serializes the broker's statistics reads: the cells' samplers
	// (brokerstats.go) and the reconciliation as a cell closes (reconcile.go).
	statsMu sync.Mutex

	// testSendDelay holds every message between its stamp and its send (WithTestSendDelay).
	testSendDelay time.Duration
	// faultCommands: the person running mqbench opted in to fault commands (WithFaultCommandsAllowed).
	faultCommands bool
	nativeSchema  func() (int32, bool) // WithNativeBuckets; nil: none

	// ackCtx bounds acknowledgement waits; cancelled when Close's grace period ends.
	ackCtx     context.Context
	cancelAcks context.CancelFunc
}

// New prepares the run of p's scenario: payload sources and per-cell state, each cell on the
// send schedule p gives it. It connects to nothing.
func New(p *plan.Plan, opts ...Option) (*Runner, error) {
	sc := p.Scenario()
	spec, err := driver.Lookup(sc.Broker.Type)
	if err != nil {
		return nil, err
	}
	r := &Runner{sc: sc, spec: spec, runID: NewRunID(), epoch: time.Now(), raw: sc.Samples == scenario.SamplesRaw,
		stampHeader: sc.Workload.Payload.Stamp == scenario.StampHeader}
	k := sc.Workload.Payload.Keys
	if r.keys, err = payload.NewKeys(sc.Workload.Payload.Key, k.Count, k.S, k.HotShare, k.HotKeys); err != nil {
		return nil, err
	}
	r.ackCtx, r.cancelAcks = context.WithCancel(context.Background())
	if o, ok := sc.Broker.Options.(driver.Options); ok {
		r.ackMode = o.AckMode()
	}
	bodies := map[int]*payload.Source{}
	for i, c := range sc.Cells {
		var body payload.Body
		switch src, ok := bodies[c.Size]; {
		case c.Producers == 0: // a consume-only cell sends nothing
		case c.Replay != nil:
			if body, err = payload.NewVaried(bodySpec(sc), c.Size); err != nil {
				return nil, err
			}
		case len(c.Mix) > 0:
			if body, err = newMix(sc, c); err != nil {
				return nil, err
			}
		case sc.Workload.Payload.Template != nil: // rendered per message, after the stamp when it is in the body
			body = payload.NewTemplated(sc.Workload.Payload.Template, c.Size, sc.StampRoom())
		case ok:
			body = src
		default:
			if src, err = payload.New(bodySpec(sc), c.Size); err != nil {
				return nil, err
			}
			bodies[c.Size], body = src, src
		}
		cs := newCell(i, c, p.Schedule(i), body, max(sc.Workload.Subscriptions, 1), sc.Workload.Consumers)
		cs.dests = newDestCounts(sc.Workload.Destinations)
		r.cells = append(r.cells, cs)
	}
	first := 0
	if len(sc.Cells) > 0 {
		first = sc.Cells[0].ConsumerRate
	}
	r.thr = newThrottle(max(sc.Workload.Subscriptions, 1)*sc.Workload.Consumers, first)
	r.apply(opts)
	return r, nil
}

// RunID is the run's random identifier (also in every header).
func (r *Runner) RunID() uint32 { return r.runID }

// Scenario returns the scenario being run.
func (r *Runner) Scenario() *scenario.Scenario { return r.sc }

// CellIndex maps a cell id to its index.
func (r *Runner) CellIndex(id string) (int, bool) {
	for i, c := range r.cells {
		if c.cell.ID == id {
			return i, true
		}
	}
	return 0, false
}

// Raw reports whether per-message k6 samples were asked for.
func (r *Runner) Raw() bool { return r.raw }

// now is the run clock: ns since epoch, monotonic.
func (r *Runner) now() int64 { return int64(time.Since(r.epoch)) }

// PublishResult is what one iteration did, for the k6 samples. Acknowledgements arrive
// later, through takeAcks; only fire-and-forget sends count as acked here.
type PublishResult struct {
	Warmup bool
	Lag    time.Duration // actual − intended iteration start
	Sent   int
	Acked  int // fire-and-forget sends (handed over is all that is known)
	Errors int // sends the client refused
	Bytes  int
	Err    error // first error, for logging
}

// Publish runs one producer iteration of a cell: batch messages on the next producer in
// round-robin, stamped with the send time and the open-model intended time (start + the
// schedule's tick iter: iter × period at a constant rate). It does not wait for
// acknowledgements (see producer).
func (r *Runner) Publish(ctx context.Context, cell int, start time.Time, iter uint64) PublishResult {
	if r.shared != nil && !r.shared.cfg.Produces {
		return PublishResult{} // a consume-only runner: k6's share of the schedule is not its to send
	}
	c := r.cells[cell]
	nowT := time.Now()
	r.begin(c)
	r.startPacing(c, start)
	if len(c.sched.Stages) > 0 { // a profile's ticks count from k6's own start (drops.go)
		c.profileClock.begin(int64(start.Sub(r.epoch)))
		tick := c.sched.At(int64(iter))
		start = start.Add(c.profileClock.observe(nowT.Sub(start), tick, c.sched.At(int64(iter)+1)-tick))
	}
	c.tl.begin(int64(start.Sub(r.epoch)))  // a profile's seconds are its own
	due := c.sched.Latest(nowT.Sub(start)) // the latest tick at or before now
	dropped := c.drops.observe(due-int64(iter), int64(nowT.Sub(r.epoch)))
	at := c.sched.At(int64(iter) + dropped)
	if at < 0 {
		return PublishResult{} // a tick of the tail k6 runs past a profile (plan.publishExecutor)
	}
	intendedT := start.Add(at)
	if intendedT.After(nowT) {
		// Iteration numbers are taken when a VU picks up the tick, so two VUs can swap
		// numbers; a message is never due after it was sent.
		intendedT = nowT
	}
	res := PublishResult{Lag: nowT.Sub(intendedT)}
	// Warm-up by the clock, not the schedule: a cell whose ticks are dropped must still
	// leave its warm-up on time.
	res.Warmup = nowT.Before(start.Add(c.cell.Warmup))
	intended := int64(intendedT.Sub(r.epoch))
	flags := uint8(0)
	if res.Warmup {
		flags = header.FlagWarmup
	}
	if !res.Warmup {
		if !c.closed.Load() { // distributions end with the cell's drain (as its interval log does)
			c.lag.Record(int64(res.Lag))
			if st := c.stageAt(intended); st != nil {
				st.lag.Record(int64(res.Lag))
			}
		}
		c.markCPUStart()
	}

	pi := int(c.rr.Add(1)-1) % c.cell.Producers
	p := r.pubs[pi]
	p.mu.Lock()
	for i := 0; i < c.cell.Batch; i++ {
		r.sendOne(ctx, c, pi, p, flags, intended, nil, &res, nil)
	}
	p.mu.Unlock()
	c.countSent(&res, res.Warmup, int64(nowT.Sub(r.epoch)))
	return res
}

// cellEnd returns when a cell's consumer phase ends: start + warm-up + duration + drain.
func (r *Runner) cellEnd(cell int, start time.Time) time.Time {
	c := r.cells[cell].cell
	return start.Add(c.Warmup + c.Duration + c.Drain)
}

// finalize ends a cell's drain: the ledger is frozen and its tally returned, and later
// deliveries only count as late. interrupted says the run was stopped before the drain
// ended (the tally is then what was known at that point). The caller then takes the cell's
// last takeSecond and calls endCell.
func (r *Runner) finalize(cell int, interrupted bool) Tally {
	c := r.cells[cell]
	r.stopPacing(c)
	handedOff := r.endHandoff(c, interrupted)
	if !handedOff {
		r.releaseConsumers(time.Now()) // a backlog cell stopped before its consumers were let go
	}
	r.holdForNext(c)
	c.cpuEnd.Store(int64(cpu.Used()))
	now := time.Now()
	c.endedAt.Store(&now)
	c.closed.Store(true)
	var t Tally
	if handedOff {
		t = c.ledger.Tally() // a later consume-only cell receives its messages and closes it
	} else {
		c.ledger.Freeze()
		if !interrupted {
			r.reconcile(c.ledger)
		}
		c.settled.Store(true)
		t = c.ledger.Tally()
	}
	c.mu.Lock()
	c.final = &t
	c.interrupted = interrupted
	c.mu.Unlock()
	return t
}

// endCell closes the cell's interval logs and frees its interval histograms, after its last
// takeSecond.
func (r *Runner) endCell(cell int) { r.closeHlogs(r.cells[cell]) }

// sampleBacklog is how many acknowledged messages of a cell have not been received yet (by
// every subscription); the highest value seen is kept for the report.
func (r *Runner) sampleBacklog(cell int) int64 {
	c := r.cells[cell]
	if c.cell.Producers == 0 {
		b := r.heldBack()
		c.backlog.observe(b)
		return b
	}
	// With fan-out every subscription is owed every acknowledged message.
	b := int64(c.acked.Load()+c.warmupSent.Load())*int64(c.subs) - int64(c.received.Load()+c.warmupRecvd.Load())
	c.backlog.observe(b)
	return b
}

// Close flushes and closes producers, then consumers, removes what the run created and
// disconnects. Every step runs even if an earlier one failed; errors are joined.
func (r *Runner) Close(ctx context.Context) error {
	r.waitFaults()
	r.mu.Lock()
	stopProgress := r.stopProgress
	r.stopProgress = nil
	r.mu.Unlock()
	if stopProgress != nil {
		stopProgress() // its last line ends before anything else is printed
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.drv == nil {
		r.closed = true
		return nil
	}
	r.closed = true
	r.releaseConsumers(time.Now())
	r.thr.release()
	var errs []error
	for _, p := range r.pubs {
		errs = append(errs, p.pub.Flush(ctx))
	}
	r.stopAcks()
	r.awaitLate(ctx)
	for _, p := range r.pubs {
		errs = append(errs, p.pub.Close())
	}
	for _, c := range r.cons {
		errs = append(errs, c.Close())
	}
	for _, c := range r.responders {
		errs = append(errs, c.Close())
	}
	for _, c := range r.cells {
		r.stopPacing(c) // a stopped run's cells were not all finalized
		r.closeHlogs(c)
	}
	r.stopClock()
	for _, d := range r.drvs {
		if r.shared == nil { // a shared destination is left to the other runners (shared.go)
			errs = append(errs, d.Teardown(ctx))
		}
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}
