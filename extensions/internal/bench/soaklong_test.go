package bench

import (
	"testing"
	"time"
)

func TestVMRSS(t *testing.T) {
	for _, tc := range []struct {
		status string
		kb     float64
		ok     bool
	}{
		{"Name:\tk6\nVmPeak:\t  900 kB\nVmRSS:\t  123456 kB\nVmData: 1 kB\n", 123456, true},
		{"Name:\tk6\n", 0, false},
		{"VmRSS:\t  x kB\n", 0, false},
	} {
		if kb, ok := vmRSS(tc.status); kb != tc.kb || ok != tc.ok {
			t.Errorf("vmRSS(%q) = %v, %v; want %v, %v", tc.status, kb, ok, tc.kb, tc.ok)
		}
	}
}

// A window's RSS is the highest reading inside it, readings at its edges included.
func TestRSSWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	r := rssSamples{at: []time.Time{t0, t0.Add(5 * time.Second), t0.Add(10 * time.Second), t0.Add(15 * time.Second)}, mb: []float64{100, 140, 120, 300}}
	if got := r.max(t0, t0.Add(10*time.Second)); got != 140 {
		t.Errorf("max = %v, want 140", got)
	}
	if got := r.max(t0.Add(time.Hour), t0.Add(2*time.Hour)); got != 0 {
		t.Errorf("max of an empty window = %v, want 0", got)
	}
}

func TestWindowEnd(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute: "10 min", 2 * time.Hour: "120 min", 20 * time.Second: "20s", 90 * time.Second: "90s",
	} {
		if got := windowEnd(d); got != want {
			t.Errorf("windowEnd(%v) = %q, want %q", d, got, want)
		}
	}
}
