package cpu

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestStealMeter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stat")
	old := hostStatPath
	hostStatPath = path
	t.Cleanup(func() { hostStatPath = old })
	write := func(line string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(line+"\ncpu0 1 2 3 4 5 6 7 8 0 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var m StealMeter
	steps := []struct {
		stat string
		pct  float64
		ok   bool
	}{
		{"cpu  100 0 50 800 10 0 0 40 0 0", 0, false},               // first reading: nothing to compare
		{"cpu  150 0 75 850 10 0 0 90 0 0", 100 * 50.0 / 175, true}, // 50 of 175 ticks stolen
		{"cpu  250 0 75 950 10 0 0 90 0 0", 0, true},                // none stolen
		{"cpu  250 0 75 950 10 0 0 90 0 0", 0, false},               // no tick passed
		{"intr 1 2 3", 0, false},                                    // not the cpu line
		{"cpu  300 0 80 1000 10 0 0 95 0 0", 0, false},              // after a failed read: starts again
		{"cpu  300 0 80 1000 10 0 0 95 20 0", 0, false},
		{"cpu  320 0 80 1030 10 0 0 145 20 0", 50, true}, // guest time (field 9) is not added twice
	}
	for i, s := range steps {
		write(s.stat)
		pct, ok := m.Percent()
		if ok != s.ok || math.Abs(pct-s.pct) > 1e-9 {
			t.Errorf("step %d (%s): got %.3f%% ok=%v, want %.3f%% ok=%v", i, s.stat, pct, ok, s.pct, s.ok)
		}
	}
	// From the first reading (step 0) to the last: 105 of 585 ticks stolen.
	if pct, ok := m.Overall(); !ok || math.Abs(pct-100*105.0/585) > 1e-9 {
		t.Errorf("Overall() = %.3f%%, %v; want 17.9%%", pct, ok)
	}
	hostStatPath = filepath.Join(t.TempDir(), "missing")
	if _, _, ok := HostTicks(); ok {
		t.Error("HostTicks read a missing file")
	}
}

// The real /proc/stat parses where there is one (every Linux machine the tests run on).
func TestHostTicksReadsProcStat(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("no /proc/stat")
	}
	steal, total, ok := HostTicks()
	if !ok || total == 0 || steal > total {
		t.Fatalf("HostTicks() = %d, %d, %v", steal, total, ok)
	}
}
