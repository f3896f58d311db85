package plan

import (
	"math"
	"sort"
	"time"
)

// profile is a schedule's stages as k6's ramping-arrival-rate executor walks them (its cal):
// each stage's rates in iterations per ns and the running count of iterations at its end,
// summed in k6's order so the floats are k6's. A tick is found by a binary search over the
// stages, so a profile of a thousand stages (a soak's bursts) costs a tick what one of ten does.
type profile struct {
	from, to, dur []float64       // per stage: rates (iterations per ns) and duration (ns)
	done, end     []float64       // iterations before and at the stage's end (k6's doneSoFar, endCount)
	start         []time.Duration // the stage's start offset
}

func newProfile(s Schedule) *profile {
	p := &profile{}
	unit := float64(s.TimeUnit)
	from, endCount, start := float64(s.StartRate)/unit, 0.0, time.Duration(0)
	for _, st := range s.Stages {
		to, dur := float64(st.Target)/unit, float64(st.Duration)
		done := endCount
		if from != to {
			endCount += dur * ((to-from)/2 + from)
		} else {
			endCount += dur * to
		}
		p.from, p.to, p.dur = append(p.from, from), append(p.to, to), append(p.dur, dur)
		p.done, p.end, p.start = append(p.done, done), append(p.end, endCount), append(p.start, start)
		from, start = to, start+st.Duration
	}
	return p
}

// profile is the schedule's profile: computed once by NewSchedule, here for one built by hand.
func (s Schedule) profile() *profile {
	if s.prof != nil {
		return s.prof
	}
	return newProfile(s)
}

// at is tick n's offset: where the integral reaches n+1, k6's formula for its stage; -1 past
// the end.
func (p *profile) at(n int64) time.Duration {
	i := float64(n + 1)
	k := sort.SearchFloat64s(p.end, i) // the first stage whose end count reaches i
	if k == len(p.end) {
		return -1
	}
	from, to, dur, done := p.from[k], p.to[k], p.dur[k], p.done[k]
	if from != to {
		x := (from*dur - math.Sqrt(max(dur*(from*from*dur+2*(i-done)*(to-from)), 0))) / (from - to)
		return time.Duration(x) + p.start[k]
	}
	return time.Duration((i-done)/to) + p.start[k]
}

// latest is the number of the latest tick at or before offset d (-1 before the first).
func (p *profile) latest(d time.Duration) int64 {
	if d < 0 || len(p.start) == 0 {
		return -1
	}
	k := sort.Search(len(p.start), func(k int) bool { return p.start[k] > d }) - 1
	area := p.end[len(p.end)-1]
	if t := float64(d - p.start[k]); t < p.dur[k] {
		area = p.done[k] + p.from[k]*t + (p.to[k]-p.from[k])*t*t/(2*p.dur[k])
	} else if k+1 < len(p.start) {
		area = p.end[k]
	}
	// The integral gives the count to within rounding; at, truncated to whole ns as k6's
	// timer is, settles a tick that falls on d.
	n := int64(math.Floor(area)) - 1
	for n >= 0 && p.at(n) > d {
		n--
	}
	for at := p.at(n + 1); at >= 0 && at <= d; at = p.at(n + 1) {
		n++
	}
	return n
}
