package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/clocksync"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A runner of a distributed run with a shared destination (plan.Distributed.Shared): its
// messages meet other runners' in one destination and one consumer group, so
//   - every runner uses the run's one run id (from MQ_RUN_ID), or each would ignore the
//     others' messages as foreign and join its own consumer group;
//   - each message names its runner (header version 2) and each cell's ledger holds every
//     runner's producers (ledger.SetShared); the merge unions the runners' ledgers;
//   - header times are on the reference clock: local run clock + clockBase, where
//     clockBase = the wall clock at epoch − the offset measured to the reference (see
//     clocksync), so a time stamped on one machine is read on another's clock correctly;
//   - a producer-only runner opens no consumer, a consumer-only runner no producer (its
//     ticks, k6's share of the schedule, do nothing);
//   - nobody deletes the destination: runners end at slightly different times, and the
//     first to finish would remove it under the others.

// SharedConfig is what WithShared needs.
type SharedConfig struct {
	RunID              uint32
	Runner, Runners    int
	Produces, Consumes bool
	// ClockRef is the reference clock's address ("": not measured, offset taken as 0).
	ClockRef string
	// TestSkew shifts this runner's clock: a test-only fault (MQ_TEST_ONLY_CLOCK_SKEW), recorded in the shard.
	TestSkew time.Duration
}

// sharedState is a shared-destination runner's part of Runner.
type sharedState struct {
	cfg       SharedConfig
	clockBase atomic.Int64 // reference ns = run-clock ns + clockBase
	wallBase  int64        // this runner's wall clock at epoch (+ TestSkew), Unix ns
	mu        sync.Mutex
	corr      clocksync.Sample   // the measurement the correction uses
	samples   []clocksync.Sample // every measurement, At on the run clock
	clockErr  string
	stop      chan struct{}
	done      chan struct{}
}

// joinShared makes the runner one of a shared destination's runners (WithShared). The
// cells' schedules already carry the rate scale of the run's producing runners (the plan's).
func (r *Runner) joinShared(cfg SharedConfig) {
	sh := &sharedState{cfg: cfg, wallBase: r.epoch.UnixNano() + int64(cfg.TestSkew)}
	sh.clockBase.Store(sh.wallBase)
	r.shared = sh
	r.runID = cfg.RunID
	for _, c := range r.cells {
		c.ledger.SetShared(cfg.Runners, cfg.Runner)
		if !cfg.Consumes {
			c.ledger.SetUnconsumed(true)
		}
	}
}

// Shared reports whether the runner shares its destination with other runners.
func (r *Runner) Shared() bool { return r.shared != nil }

// wallNow is this runner's clock as it stamps messages before correction: Unix ns.
func (sh *sharedState) wallNow(r *Runner) int64 { return sh.wallBase + r.now() }

// measureEvery is how often the offset is measured while cells run: each cell then has a
// measurement within this long before its start and after its end.
const measureEvery = time.Second

// startClock measures the offset once (the correction every header time gets from now on)
// and then every measureEvery until stopClock. Without a reference nothing is measured and
// the offset is taken as 0: runners on one host share a clock.
func (r *Runner) startClock() error {
	sh := r.shared
	if sh == nil || sh.cfg.ClockRef == "" {
		return nil
	}
	s, err := sh.measure(r)
	if err != nil {
		return err
	}
	sh.mu.Lock()
	sh.corr = s
	sh.mu.Unlock()
	sh.clockBase.Store(sh.wallBase - s.Offset)
	sh.stop, sh.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sh.done)
		t := time.NewTicker(measureEvery)
		defer t.Stop()
		for {
			select {
			case <-sh.stop:
				return
			case <-t.C:
				if _, err := sh.measure(r); err != nil {
					sh.mu.Lock()
					sh.clockErr = err.Error()
					sh.mu.Unlock()
				}
			}
		}
	}()
	return nil
}

// measure takes one sample (best of 8 round trips) and keeps it.
func (sh *sharedState) measure(r *Runner) (clocksync.Sample, error) {
	s, err := clocksync.Measure(sh.cfg.ClockRef, 8, 5*time.Second, func() int64 { return sh.wallNow(r) })
	if err != nil {
		return s, err
	}
	s.At -= sh.wallBase // on the run clock, to compare with cell windows
	sh.mu.Lock()
	sh.samples = append(sh.samples, s)
	sh.mu.Unlock()
	return s, nil
}

// stopClock ends the periodic measurements with a last one.
func (r *Runner) stopClock() {
	sh := r.shared
	if sh == nil || sh.stop == nil {
		return
	}
	close(sh.stop)
	<-sh.done
	sh.stop = nil
	_, _ = sh.measure(r)
}

// toRef and fromRef convert header times between the run clock and the reference clock.
func (r *Runner) toRef(t int64) int64 {
	if r.shared == nil || t < 0 {
		return t
	}
	return t + r.shared.clockBase.Load()
}

func (r *Runner) fromRef(t int64) int64 {
	if r.shared == nil || t < 0 {
		return t
	}
	return t - r.shared.clockBase.Load()
}

// LedgerRecord is a cell's ledger for the merge (a shared destination's runners).
func (r *Runner) LedgerRecord(cell, runner int) ledger.Record {
	return r.cells[cell].ledger.Record(runner)
}

// ClockReport is the runner's clock for its shard (nil unless shared): per cell, the last
// measurement before its start and the first after its end.
func (r *Runner) ClockReport() *results.ShardClock {
	sh := r.shared
	if sh == nil {
		return nil
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	out := &results.ShardClock{Reference: sh.cfg.ClockRef, TestOnlySkewNS: int64(sh.cfg.TestSkew),
		OffsetNS: sh.corr.Offset, UncertaintyNS: sh.corr.Uncertainty, Error: sh.clockErr}
	for _, c := range r.cells {
		cc := results.CellClock{ID: c.cell.ID}
		st, en := c.startedAt.Load(), c.endedAt.Load()
		if st != nil && en != nil && len(sh.samples) > 0 {
			from, to := int64(st.Sub(r.epoch)), int64(en.Sub(r.epoch))
			before, after := sh.samples[0], sh.samples[len(sh.samples)-1]
			for _, s := range sh.samples {
				if s.At <= from {
					before = s
				}
			}
			for i := len(sh.samples) - 1; i >= 0; i-- {
				if sh.samples[i].At >= to {
					after = sh.samples[i]
				}
			}
			cc.BeforeNS, cc.BeforeUncertaintyNS = before.Offset, before.Uncertainty
			cc.AfterNS, cc.AfterUncertaintyNS = after.Offset, after.Uncertainty
			cc.DriftNS = after.Offset - before.Offset
			cc.BoundNS = sh.corr.Uncertainty + max(abs(before.Offset-sh.corr.Offset)+before.Uncertainty, abs(after.Offset-sh.corr.Offset)+after.Uncertainty)
		}
		out.Cells = append(out.Cells, cc)
	}
	return out
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// runnerNo is the runner named in headers (0 in a plain run).
func (r *Runner) runnerNo() uint16 {
	if r.shared == nil {
		return 0
	}
	return uint16(r.shared.cfg.Runner)
}
