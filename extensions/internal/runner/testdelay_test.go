package runner

import (
	"testing"
	"time"
)

// The gate's measurement relies on every message being held at least the delay asked for.
func TestSpinForHoldsAtLeastTheDelay(t *testing.T) {
	for _, d := range []time.Duration{0, 20 * time.Microsecond, 300 * time.Microsecond} {
		start := time.Now()
		spinFor(d)
		if got := time.Since(start); got < d {
			t.Errorf("spinFor(%v) returned after %v", d, got)
		}
	}
}
