package pacer

import (
	"slices"
	"testing"
	"time"
)

// next gives the earliest due time at or after `from` over the live schedules, and drops the
// ones whose last due time passed.
func TestNext(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	cases := []struct {
		name   string
		scheds []schedule
		from   time.Time
		want   time.Time // zero: none left
	}{
		{"before the start", []schedule{{t0, periodic(ms), t0.Add(time.Second)}}, t0.Add(-5 * ms), t0},
		{"at a due time: that one", []schedule{{t0, periodic(ms), t0.Add(time.Second)}}, t0.Add(3 * ms), t0.Add(3 * ms)},
		{"just after a due time: the next one", []schedule{{t0, periodic(ms), t0.Add(time.Second)}}, t0.Add(3*ms + 1), t0.Add(4 * ms)},
		{"between due times", []schedule{{t0, periodic(ms), t0.Add(time.Second)}}, t0.Add(3*ms + 400*time.Microsecond), t0.Add(4 * ms)},
		{"the earliest of two", []schedule{{t0, periodic(3 * ms), t0.Add(time.Second)}, {t0.Add(ms), periodic(2 * ms), t0.Add(time.Second)}}, t0.Add(4 * ms), t0.Add(5 * ms)},
		{"capped by until", []schedule{{t0, periodic(10 * ms), t0.Add(5 * ms)}}, t0.Add(ms), t0.Add(5 * ms)},
		{"the last due time", []schedule{{t0, periodic(ms), t0.Add(5 * ms)}}, t0.Add(5 * ms), t0.Add(5 * ms)},
		{"ended", []schedule{{t0, periodic(ms), t0.Add(5 * ms)}}, t0.Add(5*ms + 1), time.Time{}},
		{"a schedule with no tick left", []schedule{{t0, func(time.Duration) time.Duration { return -1 }, t0.Add(time.Second)}}, t0, time.Time{}},
		{"one ended, one live", []schedule{{t0, periodic(ms), t0.Add(2 * ms)}, {t0, periodic(7 * ms), t0.Add(time.Second)}}, t0.Add(3 * ms), t0.Add(7 * ms)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &Pacer{scheds: map[int]schedule{}}
			for i, s := range c.scheds {
				p.scheds[i] = s
			}
			got, ok := p.next(c.from)
			if ok != !c.want.IsZero() || !got.Equal(c.want) {
				t.Errorf("next(%v) = %v, %v; want %v", c.from.Sub(t0), got.Sub(t0), ok, c.want.Sub(t0))
			}
			if !ok && p.on {
				t.Error("no schedule left, but the loop is still marked running")
			}
		})
	}
}

// The pacer's goroutine runs while a schedule is registered and ends after the last one is
// removed (or has passed), and a later Add starts it again.
func TestRunsOnlyWhileScheduled(t *testing.T) {
	p := new(Pacer)
	remove := p.Add(time.Now(), time.Millisecond, time.Now().Add(time.Hour))
	if !p.running() {
		t.Fatal("not running after Add")
	}
	remove()
	waitStopped(t, p)
	p.Add(time.Now(), time.Millisecond, time.Now().Add(20*time.Millisecond))
	if !p.running() {
		t.Fatal("not running after a second Add")
	}
	waitStopped(t, p) // its until passed: it ends by itself
}

func (p *Pacer) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.on
}

func waitStopped(t *testing.T, p *Pacer) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); p.running(); {
		if time.Now().After(deadline) {
			t.Fatal("still running 2s after its last schedule ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A loop sleeping until each due time of a 1 ms schedule (k6's executor and natsfloor do
// this) wakes late by Go's timer rounding, about half a millisecond at the median; with the
// pacer, tens of microseconds. The bound is generous for a loaded shared machine and the
// best of three tries counts, but a pacer that does not wake the timers cannot pass it.
func TestSleepLoopWakesOnTime(t *testing.T) {
	checkMedianLag(t, new(Pacer))
}

// A schedule added while the pacer sleeps until another's far due time is served from its
// first due time (Add wakes the loop), not from the far one.
func TestAddWakesTheLoop(t *testing.T) {
	p := new(Pacer)
	defer p.Add(time.Now().Add(time.Hour), time.Hour, time.Now().Add(2*time.Hour))()
	time.Sleep(10 * time.Millisecond) // the loop is now waiting for the hour
	checkMedianLag(t, p)
}

func checkMedianLag(t *testing.T, p *Pacer) {
	t.Helper()
	const bound = 300 * time.Microsecond
	best := time.Hour
	for try := 0; try < 3 && best > bound; try++ {
		best = min(best, medianLag(p, time.Millisecond, 300))
	}
	if best > bound {
		t.Errorf("median lateness with the pacer %v (best of 3 tries), want ≤ %v", best, bound)
	}
	t.Logf("median lateness with the pacer: %v", best)
}

func medianLag(p *Pacer, period time.Duration, n int) time.Duration {
	start := time.Now().Add(5 * time.Millisecond)
	defer p.Add(start, period, start.Add(time.Duration(n)*period))()
	lags := make([]time.Duration, n)
	for i := range lags {
		due := start.Add(time.Duration(i) * period)
		time.Sleep(time.Until(due))
		lags[i] = time.Since(due)
	}
	slices.Sort(lags)
	return lags[n/2]
}
