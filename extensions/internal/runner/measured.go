package runner

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

var _ verdict.Measurer = (*Runner)(nil)

// MeasuredTime is how much of the cell's measured window has passed: from the end of its
// warm-up to the end of its sends (start + warm-up + duration), cut short where the cell
// ended first (a stopped run, a message-counted closed loop). A counter's rate threshold is
// the cell's count over it; ok false before the window opened.
func (r *Runner) MeasuredTime(cell int) (time.Duration, bool) {
	c := r.cells[cell]
	start, ok := c.tl.started()
	if !ok {
		return 0, false
	}
	from := start + int64(c.cell.Warmup)
	to := min(r.now(), from+int64(c.cell.Duration))
	if e := c.endedAt.Load(); e != nil {
		to = min(to, int64(e.Sub(r.epoch)))
	}
	if to <= from {
		return 0, false
	}
	return time.Duration(to - from), true
}
