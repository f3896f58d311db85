package selfcheck

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The stall's theory on numbers worked by hand: 1,000 msg/s, a 2 s stall in 8,000 samples.
func TestStallTheory(t *testing.T) {
	const r, n = 1000.0, 8000
	s := 2 * time.Second
	for _, tc := range []struct {
		x    time.Duration
		want float64
	}{
		{0, 0.25}, {time.Second, 0.125}, {1500 * time.Millisecond, 0.0625}, {s, 0}, {3 * time.Second, 0},
	} {
		if got := shareAbove(r, s, tc.x, n); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("share above %v = %v, want %v", tc.x, got, tc.want)
		}
	}
	for _, tc := range []struct{ q, wantMs float64 }{
		{0.99, 1920}, {0.9, 1200}, {0.75, 0}, {0.5, 0},
	} {
		if got := quantile(r, s, tc.q, n); math.Abs(got-tc.wantMs) > 1e-9 {
			t.Errorf("quantile %v = %v ms, want %v", tc.q, got, tc.wantMs)
		}
	}
}

// Checks fail outside their range and on a missing measurement, in both directions.
func TestChecksCanFail(t *testing.T) {
	s := 2 * time.Second
	for _, tc := range []struct {
		c    Check
		pass bool
	}{
		{within("shift", 2.1, 2, 0.3, "ms", ""), true},
		{within("shift", 0.05, 2, 0.3, "ms", ""), false}, // the delay was not found
		{within("shift", 2.4, 2, 0.3, "ms", ""), false},
		{within("shift", math.NaN(), 2, 0.3, "ms", ""), false},
		// 200 ms of 1,000 msg/s in 8,000 samples: 12.5 % ± 2.5 %
		{shareCheck("share", 0.145, 1000, s, time.Second, 8000, s/10, transits{}), true},
		{shareCheck("share", 0.0, 1000, s, time.Second, 8000, s/10, transits{}), false}, // the stall was not seen
		{shareCheck("share", 0.155, 1000, s, time.Second, 8000, s/10, transits{}), false},
		{shareCheck("share", 0.095, 1000, s, time.Second, 8000, s/10, transits{}), false},
		{quantileCheck("p99", 1900, 1000, s, 0.99, 8000, 200, transits{}), true},
		{quantileCheck("p99", 1, 1000, s, 0.99, 8000, 200, transits{}), false},
		{quantileCheck("p90", 1500, 1000, s, 0.9, 8000, 200, transits{}), false},
		// Against the proxy's measure: a burst that took 210 ms through the proxy moves its p90
		// to 1,410 ms; mqbench reporting that passes, reporting theory's 1,200 ms (what it did
		// not see) fails, and so does a proxy measure it could not pair with nothing to judge by.
		{quantileCheck("p90", 1411, 1000, s, 0.9, 8000, 200, slowBurst()), true},
		{quantileCheck("p90", 1200, 1000, s, 0.9, 8000, 200, slowBurst()), false},
		{quantileCheck("p90", 1411, 1000, s, 0.9, 8000, 200, transits{err: errors.New("8999 frames in, 9000 out")}), false},
		{shareCheck("share", 0.151, 1000, s, time.Second, 8000, s/10, slowBurst()), true},
		{shareCheck("share", 0.0, 1000, s, time.Second, 8000, s/10, slowBurst()), false},
		// A proxy that never held anything agrees with an mqbench that saw no stall: both fail.
		{quantileCheck("p90", 0.2, 1000, s, 0.9, 8000, 200, noStall()), false},
		{shareCheck("share", 0.0, 1000, s, time.Second, 8000, s/10, noStall()), false},
	} {
		if tc.c.Pass != tc.pass {
			t.Errorf("%s: measured %v, range %v…%v: pass %v, want %v", tc.c.Name, tc.c.Measured, tc.c.Lo, tc.c.Hi, tc.c.Pass, tc.pass)
		}
	}
}

// The rate during the stall comes from the timeline's per-second counts, pro rata where the
// stall covers part of a second.
func TestSentDuring(t *testing.T) {
	c := results.Cell{TimelineStepS: 1, Timeline: []results.TimelinePoint{
		{T: 0, Sent: 1000}, {T: 1, Sent: 1000}, {T: 2, Sent: 800}, {T: 3, Sent: 600}, {T: 4, Sent: 1000},
	}}
	for _, tc := range []struct{ from, d, want float64 }{
		{2, 2, 1400}, {1.5, 2, 500 + 800 + 300}, {0, 5, 4400}, {4.5, 3, 500},
	} {
		if got := sentDuring(c, tc.from, tc.d); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("sent from %v for %v s = %v, want %v", tc.from, tc.d, got, tc.want)
		}
	}
}

// stalled is what a proxy sees of 8,000 messages at 1,000 msg/s with a 2 s stall in them: the
// message due u into the stall waits S - u, plus its place in the burst released at the
// stall's end times burst (each message's share of the time the burst takes through it).
func stalled(burst time.Duration) transits {
	const r, n = 1000, 8000
	s := 2 * time.Second
	d := make([]time.Duration, n)
	for k := range r * 2 { // the messages due during the stall, in the order sent
		d[k] = s - time.Duration(k)*time.Second/r + time.Duration(k)*burst
		d[n-1-k] = 0
	}
	for k := r * 2; k < n-r*2; k++ {
		d[k] = 100 * time.Microsecond
	}
	slices.Sort(d)
	return transits{d: d}
}

// slowBurst: the burst took 0.26 ms per message through the proxy (the 800th 210 ms late).
func slowBurst() transits { return stalled(262500 * time.Nanosecond) }

// noStall: a proxy that passed every message on at once.
func noStall() transits {
	d := make([]time.Duration, 8000)
	for k := range d {
		d[k] = 200 * time.Microsecond
	}
	return transits{d: d}
}

// On an ideal machine the proxy's measure is theory; on a slow one, theory plus the burst.
func TestTransitsOfAStall(t *testing.T) {
	const r, n = 1000.0, 8000
	s := 2 * time.Second
	ideal, slow := stalled(0), slowBurst()
	for _, q := range []float64{0.9, 0.99} {
		if got, want := ideal.quantileMs(q), quantile(r, s, q, n); math.Abs(got-want) > 1.001 {
			t.Errorf("ideal p%v = %v ms, theory %v", 100*q, got, want)
		}
	}
	if got, want := ideal.shareAbove(time.Second), shareAbove(r, s, time.Second, n); math.Abs(got-want) > 1.0/n {
		t.Errorf("ideal share above 1s = %v, theory %v", got, want)
	}
	if got := slow.quantileMs(0.9); math.Abs(got-1410) > 1.001 {
		t.Errorf("slow burst p90 = %v ms, want 1410", got)
	}
}
