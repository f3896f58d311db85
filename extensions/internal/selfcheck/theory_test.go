package selfcheck

import (
	"math"
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
		{shareCheck("share", 0.145, 1000, s, time.Second, 8000, s/10), true},
		{shareCheck("share", 0.0, 1000, s, time.Second, 8000, s/10), false}, // the stall was not seen
		{shareCheck("share", 0.155, 1000, s, time.Second, 8000, s/10), false},
		{shareCheck("share", 0.095, 1000, s, time.Second, 8000, s/10), false},
		{quantileCheck("p99", 1900, 1000, s, 0.99, 8000, 200), true},
		{quantileCheck("p99", 1, 1000, s, 0.99, 8000, 200), false},
		{quantileCheck("p90", 1500, 1000, s, 0.9, 8000, 200), false},
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
