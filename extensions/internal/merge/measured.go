package merge

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

var _ verdict.Measurer = (*Data)(nil)

// MeasuredTime is a merged cell's measured window, as a single run's: its duration, cut
// short where the cell ended first (started_at + warm-up to ended_at). A counter's rate is
// the runners' summed count over it, since they measured side by side.
func (d *Data) MeasuredTime(cell int) (time.Duration, bool) {
	c := &d.s.Cells[cell]
	if c.Status == "not started" {
		return 0, false
	}
	span := time.Duration(c.DurationS * float64(time.Second))
	from, err1 := time.Parse(time.RFC3339Nano, c.StartedAt)
	to, err2 := time.Parse(time.RFC3339Nano, c.EndedAt)
	if err1 == nil && err2 == nil {
		span = min(span, to.Sub(from.Add(time.Duration(c.WarmupS*float64(time.Second)))))
	}
	return span, span > 0
}
