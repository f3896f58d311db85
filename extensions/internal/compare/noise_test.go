package compare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// synthRun writes a run of one cell whose e2e latencies are, each second, lognormal around
// median (µs) times that second's factor: an interval log the gate reads blocks from, and the
// summary's whole-run figures.
func synthRun(t *testing.T, seed uint64, seconds, perSecond int, median float64, shiftUS float64) *results.Run {
	t.Helper()
	return synthStolen(t, seed, seconds, perSecond, median, shiftUS, -1, -1)
}

// synthStolen is synthRun whose seconds from … to-1 fell in a burst of the host's CPU steal:
// every latency ten times higher, and each such second recorded in host_steal at 30 %.
func synthStolen(t *testing.T, seed uint64, seconds, perSecond int, median, shiftUS float64, from, to int) *results.Run {
	t.Helper()
	dir := t.TempDir()
	var steal []results.StealSecond
	rng := rand.New(rand.NewPCG(seed, 7))
	all := hist.New()
	var lines []string
	for s := 0; s < seconds; s++ {
		h := hist.New()
		burst, host := 1.0, 1.0
		if rng.Float64() < 0.2 { // a bursty second: its tail is far out
			burst = 1.5
		}
		if s >= from && s < to {
			host = 10
			steal = append(steal, results.StealSecond{Start: float64(s) + 0.001, Length: 1, Pct: 30})
		}
		for i := 0; i < perSecond; i++ {
			v := host * median * mathExp(rng.NormFloat64()*0.5*burst)
			ns := int64((v + shiftUS) * 1e3)
			h.Record(ns)
			all.Record(ns)
		}
		enc, err := h.EncodeV2()
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, fmt.Sprintf("%d.000,1.000,0.000,%s", s, enc))
	}
	rel := "hlog/c1.e2e.hlog"
	if err := os.MkdirAll(filepath.Join(dir, "hlog"), 0o755); err != nil {
		t.Fatal(err)
	}
	text := "#[test]\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n" + strings.Join(lines, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	c := results.Cell{ID: "c1", Status: "complete", E2ELatency: all.Snapshot(), Hlog: map[string]string{"e2e": rel}, HostSteal: steal}
	return &results.Run{Dir: dir, Summary: results.Summary{Cells: []results.Cell{c}}}
}

func TestGateKnowsNoise(t *testing.T) {
	p99, _ := ParseMetrics("e2e.p99")
	p9999, _ := ParseMetrics("e2e.p99.99")
	for _, tc := range []struct {
		name      string
		base      []*results.Run
		cand      []*results.Run
		metrics   []Metric
		regressed bool
		skipped   bool
		note      string
	}{
		{"identical load, one run each", []*results.Run{synthRun(t, 1, 20, 2000, 200, 0)}, []*results.Run{synthRun(t, 2, 20, 2000, 200, 0)}, p99, false, false, ""},
		{"identical load, repeated runs", []*results.Run{synthRun(t, 3, 20, 2000, 200, 0), synthRun(t, 4, 20, 2000, 200, 0)},
			[]*results.Run{synthRun(t, 5, 20, 2000, 200, 0), synthRun(t, 6, 20, 2000, 200, 0)}, p99, false, false, ""},
		{"every message 600us slower", []*results.Run{synthRun(t, 7, 20, 2000, 200, 0)}, []*results.Run{synthRun(t, 8, 20, 2000, 200, 600)}, p99, true, false, ""},
		{"slower, repeated runs", []*results.Run{synthRun(t, 9, 20, 2000, 200, 0), synthRun(t, 10, 20, 2000, 200, 0)},
			[]*results.Run{synthRun(t, 11, 20, 2000, 200, 300), synthRun(t, 12, 20, 2000, 200, 300)}, p99, true, false, ""},
		{"p99.99 of 6,000 samples is not judged", []*results.Run{synthRun(t, 13, 3, 2000, 200, 0)}, []*results.Run{synthRun(t, 14, 3, 2000, 200, 900)}, p9999, false, true,
			"not judged: p99.99 needs 10000 samples, the baseline has 6000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := GateRuns(tc.base, tc.cand, tc.metrics, 0.10, Alpha, MaxSteal)
			if len(fs) != 1 {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if f.Regressed != tc.regressed || f.Skipped != tc.skipped || !strings.Contains(f.Note, tc.note) {
				t.Errorf("%s", f.Line(0.10))
			}
		})
	}
}

// Seconds in which the host stole CPU are left out on both sides: a burst that fell on one
// side's runs alone no longer reads as a regression, and a real one still does.
func TestGateLeavesOutStolenSeconds(t *testing.T) {
	p99, _ := ParseMetrics("e2e.p99")
	base := []*results.Run{synthRun(t, 21, 30, 2000, 200, 0), synthRun(t, 22, 30, 2000, 200, 0)}
	burst := []*results.Run{synthStolen(t, 23, 30, 2000, 200, 0, 2, 30), synthRun(t, 24, 30, 2000, 200, 0)}
	slowBurst := []*results.Run{synthStolen(t, 25, 30, 2000, 200, 600, 2, 30), synthRun(t, 26, 30, 2000, 200, 600)}
	allStolen := []*results.Run{synthStolen(t, 27, 30, 2000, 200, 0, 0, 28)}
	for _, tc := range []struct {
		name      string
		cand      []*results.Run
		maxSteal  float64
		regressed bool
		skipped   bool
		note      string
	}{
		// The burst itself fails the gate when the steal is not looked at (100 %: nothing left
		// out), so the case below tests something.
		{"identical load, a burst in one candidate run, steal ignored", burst, 100, true, false, ""},
		{"identical load, a burst in one candidate run", burst, MaxSteal, false, false,
			"left out: 0 of 60 baseline and 28 of 60 candidate seconds, in which the host stole over 2% of the CPU"},
		{"600us slower, a burst in one candidate run", slowBurst, MaxSteal, true, false, "28 of 60 candidate seconds"},
		{"a candidate stolen nearly whole", allStolen, MaxSteal, false, true, "not judged: too few seconds left"},
		// Three seconds are too few with or without the stolen one: the tolerance judges, as
		// it does for any short run.
		{"a short candidate, one second stolen", []*results.Run{synthStolen(t, 28, 3, 2000, 200, 600, 1, 2)}, MaxSteal, true, false, "noise unknown (too few blocks)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := GateRuns(base, tc.cand, p99, 0.10, Alpha, tc.maxSteal)
			if len(fs) != 1 {
				t.Fatalf("findings %+v", fs)
			}
			f := fs[0]
			if line := f.Line(0.10); f.Regressed != tc.regressed || f.Skipped != tc.skipped || !strings.Contains(line, tc.note) {
				t.Errorf("regressed %v skipped %v: %s", f.Regressed, f.Skipped, line)
			}
		})
	}
}

func TestRankTest(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8}
	if p := rankTest(a, []float64{11, 12, 13, 14, 15, 16, 17, 18}, Alpha); p > 0.001 {
		t.Errorf("separated: p=%v", p)
	}
	if p := rankTest(a, []float64{1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, 8.5}, Alpha); p < 0.2 {
		t.Errorf("interleaved: p=%v", p)
	}
	if p := rankTest(a, []float64{1, 2}, Alpha); p == p {
		t.Errorf("too few blocks: p=%v, want NaN", p)
	}
	// 5 against 5 cannot reach 0.001 even when separated: the data cannot tell.
	if p := rankTest(a[:5], []float64{11, 12, 13, 14, 15}, Alpha); p == p {
		t.Errorf("5 against 5: p=%v, want NaN", p)
	}
}

func mathExp(x float64) float64 { return math.Exp(x) }

func TestDetectable(t *testing.T) {
	tight := []float64{100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111}
	wide := []float64{100, 300, 120, 900, 150, 2000, 110, 700, 130, 400, 160, 1500}
	ft, fw := detectable(tight, Alpha), detectable(wide, Alpha)
	// Tight blocks: a shift of about the blocks' range separates them; wide ones need far more.
	if !(ft > 0.05 && ft < 0.2) {
		t.Errorf("tight blocks: detectable %v, want about 0.1", ft)
	}
	if !(fw > 10*ft) {
		t.Errorf("wide blocks: detectable %v, want far above the tight blocks' %v", fw, ft)
	}
	// The figure is what the test really needs: just above it the rank test fires, below it does not.
	scaled := func(f float64) []float64 {
		out := make([]float64, len(wide))
		for i, x := range wide {
			out[i] = x * (1 + f)
		}
		return out
	}
	if p := rankTest(wide, scaled(fw*1.01), Alpha); !(p < Alpha) {
		t.Errorf("just above detectable %v: p=%v", fw, p)
	}
	if p := rankTest(wide, scaled(fw*0.95), Alpha); p < Alpha {
		t.Errorf("below detectable %v: p=%v", fw, p)
	}
	if d := detectable(tight[:5], Alpha); d == d {
		t.Errorf("5 blocks: %v, want NaN (the test cannot reach alpha)", d)
	}
}
