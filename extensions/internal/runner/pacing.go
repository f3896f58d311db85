package runner

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// cellPacing is a fixed-rate cell's schedule in the process's pacer (workload.pacing:
// precise): registered at the cell's first iteration, when the k6 scenario's start (the
// origin of its due times) is known, and removed when the cell is finalized, so the pacer
// runs only while cells send.
type cellPacing struct {
	started atomic.Bool // checked on every iteration: no lock once registered
	mu      sync.Mutex
	stopped bool
	remove  func()
}

// startPacing registers c's due times (the schedule's ticks, as k6's arrival-rate executors
// set their timers) until its producers' last one. k6 starts the first iteration
// itself, before the pacer runs: it is in the warm-up.
func (r *Runner) startPacing(c *cellState, start time.Time) {
	if c.pacing.started.Load() || r.sc.Workload.Pacing != scenario.PacingPrecise || c.cell.Max {
		return
	}
	c.pacing.mu.Lock()
	defer c.pacing.mu.Unlock()
	if c.pacing.stopped || !c.pacing.started.CompareAndSwap(false, true) {
		return
	}
	next, until := c.sched.Next, start.Add(c.cell.Warmup+c.cell.Duration)
	if len(c.sched.Stages) > 0 { // a profile's ticks, from k6's own start of its clock
		next = func(d time.Duration) time.Duration {
			if d < profileSettle {
				// While the offset is learned, wake as often as the pacer does (50 µs): an
				// iteration then starts within that of k6's tick, and the smallest lateness seen
				// is the offset itself, not the offset plus a wake-up of the estimate's own.
				return max(d, 0)
			}
			off := c.profileClock.get()
			if at := c.sched.Next(d - off); at >= 0 {
				return at + off
			}
			return -1
		}
		until = until.Add(profileSettle) // past the offset, whatever it is
	}
	c.pacing.remove = pacer.Default.AddTicks(start, next, until)
}

// stopPacing removes c's schedule, if any (finalize; Close, for a stopped run).
func (r *Runner) stopPacing(c *cellState) {
	c.pacing.mu.Lock()
	defer c.pacing.mu.Unlock()
	c.pacing.stopped = true
	if c.pacing.remove != nil {
		c.pacing.remove()
	}
}

// pacingMode is the pacing the run's fixed-rate sends got (summary.json's pacing): the
// scenario's, except precise on a system without the pacer's kernel timer, which runs as
// timer (Go's timers alone).
func (r *Runner) pacingMode() string {
	if r.sc.Workload.Pacing == scenario.PacingPrecise && !pacer.Precise() {
		return scenario.PacingTimer
	}
	return r.sc.Workload.Pacing
}
