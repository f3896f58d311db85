package plan

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
	"github.com/mqbench/xk6-mqbench/internal/pacer"
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
	// k6's own ticks; 0 for a profile.
	Period time.Duration
	// StartRate and Stages are a profile's (ramping-arrival-rate), in iterations per TimeUnit;
	// the warm-up is its first stage, at the start rate.
	StartRate int
	Stages    []scenario.Stage
	prof      *profile // the stages' sums, computed once (NewSchedule)
}

// NewSchedule is cell c's schedule with the rate scale num/den applied (RateScale; 1/1 in a
// plain run): rate·num iterations per batch·den seconds, exactly, with no rounding.
func NewSchedule(c scenario.Cell, num, den int) Schedule {
	if c.Rate < 1 { // rate: max (the parser leaves Rate 0)
		return Schedule{}
	}
	s := Schedule{Rate: c.Rate * num, TimeUnit: time.Duration(c.Batch*den) * time.Second}
	if len(c.Stages) > 0 {
		s.StartRate = c.StartRate * num
		if c.Warmup > 0 {
			s.Stages = append(s.Stages, scenario.Stage{Name: "warmup", Target: s.StartRate, Duration: c.Warmup.Truncate(time.Millisecond)})
		}
		for _, st := range c.Stages {
			st.Target *= num
			st.Duration = st.Duration.Truncate(time.Millisecond) // as k6's options carry it
			s.Stages = append(s.Stages, st)
		}
		s.prof = newProfile(s)
		return s
	}
	s.Period = arrival.Period(int64(s.Rate), s.TimeUnit)
	return s
}

// At is the offset of tick n (n ≥ 0) from the cell's start, as k6 times its iterations:
// n × Period at a constant rate; under a profile, its profile's (profile.go), -1 past its end.
func (s Schedule) At(n int64) time.Duration {
	if len(s.Stages) == 0 {
		return time.Duration(n) * s.Period
	}
	return s.profile().at(n)
}

// Latest is the number of the latest tick at or before offset d from the cell's start (-1
// before the first): how many iterations are due by then, less one.
func (s Schedule) Latest(d time.Duration) int64 {
	if len(s.Stages) == 0 {
		return int64(d / s.Period)
	}
	return s.profile().latest(d)
}

// Next is the offset of the first tick at or after offset d (k6's timer fires there), or -1
// when none is left.
func (s Schedule) Next(d time.Duration) time.Duration {
	if len(s.Stages) == 0 {
		return pacer.RoundUp(d, s.Period)
	}
	p := s.profile()
	n := p.latest(d)
	if at := p.at(max(n, 0)); n >= 0 && at >= d {
		return at
	}
	return p.at(n + 1)
}

// Schedule is cell i's schedule (the zero Schedule for an index out of range).
func (p *Plan) Schedule(i int) Schedule {
	if i < 0 || i >= len(p.schedules) {
		return Schedule{}
	}
	return p.schedules[i]
}
