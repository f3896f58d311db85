package plan

import (
	"math/big"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Schedule is one cell's send schedule on this runner, computed once: the producer scenario's
// k6 options carry Rate and TimeUnit, and the runner stamps intended send times (start +
// iteration × Period) and paces on Period, so both read the same numbers. The zero Schedule
// is no schedule: rate: max and consume-only cells.
type Schedule struct {
	Rate     int           // iterations per TimeUnit: the cell's rate, scaled (RateScale)
	TimeUnit time.Duration // the cell's batch in seconds, scaled (RateScale)
	// Period is the time between iterations as k6 computes it, so intended times fall on
	// k6's own ticks.
	Period time.Duration
}

// NewSchedule is cell c's schedule with the rate scale num/den applied (RateScale; 1/1 in a
// plain run): rate·num iterations per batch·den seconds, exactly, with no rounding.
func NewSchedule(c scenario.Cell, num, den int) Schedule {
	if c.Rate < 1 { // rate: max (the parser leaves Rate 0)
		return Schedule{}
	}
	s := Schedule{Rate: c.Rate * num, TimeUnit: time.Duration(c.Batch*den) * time.Second}
	s.Period = tickerPeriod(s.Rate, s.TimeUnit)
	return s
}

// Schedule is cell i's schedule (the zero Schedule for an index out of range).
func (p *Plan) Schedule(i int) Schedule {
	if i < 0 || i >= len(p.schedules) {
		return Schedule{}
	}
	return p.schedules[i]
}

// tickerPeriod is k6's iteration period for a constant-arrival-rate executor (lib/executor
// getTickerPeriod on the unscaled rate, which its timer multiplies by the iteration number):
// 1 / (rate / timeUnit) as a float, truncated to whole ns. Rounding would drift from k6's
// ticks: 180 µs over 30 s at 6,000 msg/s.
func tickerPeriod(rate int, timeUnit time.Duration) time.Duration {
	f, _ := new(big.Rat).Inv(big.NewRat(int64(rate), int64(timeUnit))).Float64()
	return time.Duration(f)
}
