package pacer

import (
	"testing"
	"time"
)

// The lead follows the wake-up latency (its mean plus twice its deviation), never exceeds a
// twentieth of the gap between wake-ups, and ignores readings that are not wake-ups.
func TestWakeLead(t *testing.T) {
	us := time.Microsecond
	repeat := func(n int, seq ...time.Duration) []time.Duration {
		var out []time.Duration
		for range n {
			out = append(out, seq...)
		}
		return out
	}
	cases := []struct {
		name     string
		seen     []time.Duration
		gap      time.Duration
		min, max time.Duration // the lead's bounds
	}{
		{"nothing seen: no lead", nil, time.Millisecond, 0, 0},
		{"a steady 30 µs", repeat(200, 30*us), time.Millisecond, 29 * us, 31 * us},
		{"30 µs, capped at a twentieth of a 100 µs gap", repeat(200, 30*us), 100 * us, 5 * us, 5 * us},
		{"alternating 20 and 40 µs: mean 30, deviation 10", repeat(200, 20*us, 40*us), time.Millisecond, 45 * us, 55 * us},
		{"not wake-ups: none, negative, over 1 ms", []time.Duration{0, -5 * us, 2 * time.Millisecond}, time.Millisecond, 0, 0},
		{"a descheduled reading among steady ones is ignored", append(repeat(200, 30*us), 50*time.Millisecond), time.Millisecond, 29 * us, 31 * us},
		{"a shorter latency later pulls the lead down", append(repeat(200, 60*us), repeat(200, 10*us)...), time.Millisecond, 9 * us, 11 * us},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var w wakeLead
			for _, l := range c.seen {
				w.observe(l)
			}
			if got := w.lead(c.gap); got < c.min || got > c.max {
				t.Errorf("lead(%v) = %v, want in [%v, %v] (mean %v, deviation %v)", c.gap, got, c.min, c.max, w.mean, w.dev)
			}
		})
	}
}
