package runner

import (
	"testing"
	"time"
)

// A profile's clock offset is the smallest (start − tick) seen in its first second, never
// negative, and kept after it: a late iteration or one past the first second moves nothing.
func TestClockOffset(t *testing.T) {
	o := newClockOffset()
	if got := o.get(); got != 0 {
		t.Fatalf("before any iteration: %v, want 0", got)
	}
	ms := time.Millisecond
	for _, c := range []struct {
		since, tick, want time.Duration
	}{
		{15 * ms, 0, 15 * ms},       // the first iteration: k6 started 15 ms late
		{35 * ms, 10 * ms, 15 * ms}, // a later one, woken 10 ms late: no change
		{24*ms + 500*time.Microsecond, 10 * ms, 14*ms + 500*time.Microsecond}, // woken sooner
		{30 * ms, 20 * ms, 10 * ms}, // sooner still
		{5 * ms, 10 * ms, 0},        // a swapped iteration number: never below 0
		{1500 * ms, 1500 * ms, 0},   // past the first second: kept
		{400 * ms, -1, 0},           // a tick past the profile: not a tick
	} {
		if got := o.observe(c.since, c.tick); got != c.want {
			t.Errorf("observe(%v, %v) = %v, want %v", c.since, c.tick, got, c.want)
		}
	}
	o = newClockOffset()
	o.observe(2*time.Second, time.Second) // past the first second: not learned
	if got := o.get(); got != 0 {
		t.Errorf("an iteration after the first second taught %v, want 0", got)
	}
}
