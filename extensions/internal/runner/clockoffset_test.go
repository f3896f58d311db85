package runner

import (
	"testing"
	"time"
)

// A profile's clock offset is the smallest (start − tick) seen in its first second, never
// negative; later, an iteration lowers it only by less than half its tick's period (more is an
// iteration numbered ahead of its tick), and a tick past the profile teaches nothing.
func TestClockOffset(t *testing.T) {
	o := newClockOffset()
	if got := o.get(); got != 0 {
		t.Fatalf("before any iteration: %v, want 0", got)
	}
	ms, us := time.Millisecond, time.Microsecond
	for _, c := range []struct {
		name                string
		since, tick, period time.Duration
		want                time.Duration
	}{
		{"the first iteration: k6 started 15 ms late", 15 * ms, 0, 10 * ms, 15 * ms},
		{"woken 10 ms late: no change", 35 * ms, 10 * ms, 10 * ms, 15 * ms},
		{"woken sooner", 24*ms + 500*us, 10 * ms, 10 * ms, 14*ms + 500*us},
		{"in the first second any step counts", 24 * ms, 10 * ms, 10 * ms, 14 * ms},
		{"a tick past the profile", 400 * ms, -1, 0, 14 * ms},
		{"later: 100 µs sooner at a 250 µs period", 2*time.Second + 13*ms + 900*us, 2 * time.Second, 250 * us, 13*ms + 900*us},
		{"later: 200 µs sooner at a 250 µs period (numbered ahead)", 2*time.Second + 13*ms + 700*us, 2 * time.Second, 250 * us, 13*ms + 900*us},
		{"later: the last tick (no next one)", 3*time.Second + 13*ms, 3 * time.Second, -3 * time.Second, 13*ms + 900*us},
	} {
		if got := o.observe(c.since, c.tick, c.period); got != c.want {
			t.Errorf("%s: observe(%v, %v, %v) = %v, want %v", c.name, c.since, c.tick, c.period, got, c.want)
		}
	}
	o = newClockOffset()
	if got := o.observe(5*ms, 10*ms, 10*ms); got != 0 {
		t.Errorf("an iteration before its tick: offset %v, want 0 (never negative)", got)
	}
}
