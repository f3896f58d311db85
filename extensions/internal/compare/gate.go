// Package compare compares finished runs (read by results.Load): overlaid percentile charts
// and a table for several runs or brokers (compare.html, compare.md), and a baseline
// regression gate for CI.
package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Finding is one metric of one cell, baseline against candidate.
type Finding struct {
	Cell   string
	Metric Metric
	Base   float64 // the baseline's figure (the mean of its runs' figures)
	Cand   float64
	// BaseMed, CandMed: the median of the blocks' figures (noise.go), what the change is
	// judged on when both sides have blocks (0: they have not).
	BaseMed, CandMed float64
	Worse            float64 // relative change, positive = worse (latency up or throughput down)
	P                float64 // the rank test's p-value that the candidate is worse; NaN: not tested
	Regressed        bool    // worse beyond the tolerance and the noise, or not measured / not completed
	Skipped          bool    // measured by neither run, or not judged (a percentile too few samples resolve)
	// Detectable is the smallest relative worsening this comparison could have found
	// (noise.go: detectable); +Inf when even a 1000-fold change would stay in the noise,
	// NaN when not tested.
	Detectable float64
	Note       string
	// Stolen and Seconds, baseline then candidate: the seconds left out of the rank test
	// because the host stole more than MaxSteal percent of the CPU in them, of all seconds.
	Stolen, Seconds [2]int
	MaxSteal        float64
}

// Gate compares every cell of the baseline with the same cell (by id) of the candidate; one
// run each (GateRuns takes repeated runs).
func Gate(base, cand *results.Run, metrics []Metric, tol float64) []Finding {
	return GateRuns([]*results.Run{base}, []*results.Run{cand}, metrics, tol, Alpha, MaxSteal)
}

// GateRuns compares the baseline runs' cells with the candidate runs' (by id, the first run's
// cells). A cell missing or not completed in a candidate, or a metric the baseline has and a
// candidate lacks, counts as a regression: the gate cannot vouch for it. A change counts when
// it exceeds the tolerance and the rank test over the runs' blocks finds it at level alpha
// (noise.go) over the seconds in which the host stole at most maxSteal percent of the CPU; a
// percentile the sample count cannot resolve is not judged.
func GateRuns(bases, cands []*results.Run, metrics []Metric, tol, alpha, maxSteal float64) []Finding {
	var out []Finding
	for _, bc := range bases[0].Cells {
		if f, bad := cellProblem(bc.ID, cands); bad {
			out = append(out, f)
			continue
		}
		for _, m := range metrics {
			out = append(out, judge(bc.ID, m, bases, cands, tol, alpha, maxSteal))
		}
	}
	return out
}

// cellProblem is a regression when any candidate lacks the cell or did not complete it.
func cellProblem(id string, cands []*results.Run) (Finding, bool) {
	for _, r := range cands {
		cc := r.Cell(id)
		switch {
		case cc == nil:
			return Finding{Cell: id, Regressed: true, Note: "missing in the candidate"}, true
		case cc.Status != "" && cc.Status != "complete":
			return Finding{Cell: id, Regressed: true, Note: "candidate cell " + cc.Status + " (did not run to its end)"}, true
		}
	}
	return Finding{}, false
}

// side is one side's runs for one metric: the mean of their figures, the fewest samples
// behind one of them, every run's blocks pooled, and the seconds left out of them.
type side struct {
	v               float64
	n               int64
	ok              bool
	blocks          []float64
	stolen, seconds int
	unstolen        int // blocks with every second kept
}

func measure(runs []*results.Run, cell string, m Metric, maxSteal float64) side {
	s := side{n: -1}
	var sum float64
	for _, r := range runs {
		v, n, ok := Value(r, cell, m)
		if !ok {
			return side{}
		}
		sum += v
		if s.n < 0 || n < s.n {
			s.n = n
		}
		bl, stolen, seconds, unstolen := blocks(r, cell, m, maxSteal)
		s.blocks = append(s.blocks, bl...)
		s.stolen += stolen
		s.seconds += seconds
		s.unstolen += unstolen
	}
	s.v, s.ok = sum/float64(len(runs)), len(runs) > 0
	return s
}

// tooStolen: the host's stolen seconds left too few blocks for the rank test, where keeping
// them would have given enough.
func (s side) tooStolen() bool { return len(s.blocks) < minBlocks && s.unstolen >= minBlocks }

func judge(cell string, m Metric, bases, cands []*results.Run, tol, alpha, maxSteal float64) Finding {
	f := Finding{Cell: cell, Metric: m, P: math.NaN(), Detectable: math.NaN(), MaxSteal: maxSteal}
	b, c := measure(bases, cell, m, maxSteal), measure(cands, cell, m, maxSteal)
	f.Base, f.Cand = b.v, c.v
	f.Stolen, f.Seconds = [2]int{b.stolen, c.stolen}, [2]int{b.seconds, c.seconds}
	switch {
	case !b.ok && !c.ok:
		f.Skipped, f.Note = true, "measured in neither run"
		return f
	case !c.ok:
		f.Regressed, f.Note = true, "not measured in the candidate"
		return f
	case !b.ok:
		f.Skipped, f.Note = true, "no baseline figure"
		return f
	}
	if m.Q > 0 {
		need := int64(math.Ceil(1/(1-m.Q) - 1e-6))
		for _, sd := range []struct {
			name string
			n    int64
		}{{"baseline", b.n}, {"candidate", c.n}} {
			if sd.n > 0 && sd.n < need {
				f.Skipped, f.Note = true, fmt.Sprintf("not judged: %s needs %d samples, the %s has %d", m.Stat, need, sd.name, sd.n)
				return f
			}
		}
	}
	f.Worse = worse(m, b.v, c.v)
	if b.tooStolen() || c.tooStolen() {
		// The whole-run figures hold the stolen seconds; what is left cannot be tested.
		f.Skipped, f.Note = true, "not judged: too few seconds left once the host's stolen ones are out; rerun on a quieter machine"
		return f
	}
	if len(b.blocks) >= minBlocks && len(c.blocks) >= minBlocks {
		// A whole run's tail percentile is decided by how many bursty seconds it happened to
		// have; the median of the seconds' figures is not.
		f.BaseMed, f.CandMed = median(b.blocks), median(c.blocks)
		f.Worse = worse(m, f.BaseMed, f.CandMed)
	}
	bb, cb := b.blocks, c.blocks
	if !m.LowerIsBetter() { // worse is lower: test the negated values
		bb, cb = negate(bb), negate(cb)
	}
	f.P = rankTest(bb, cb, alpha)
	f.Detectable = math.NaN()
	if !math.IsNaN(f.P) {
		f.Detectable = math.Max(detectable(bb, alpha), tol)
	}
	beyondTol := f.Worse > tol+1e-9
	switch {
	case !beyondTol:
	case math.IsNaN(f.P):
		f.Regressed, f.Note = true, "noise unknown (too few blocks): the tolerance alone judged"
	case f.P < alpha:
		f.Regressed = true
	}
	return f
}

func negate(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = -x
	}
	return out
}

func worse(m Metric, b, c float64) float64 {
	if b == 0 {
		if c == 0 || !m.LowerIsBetter() {
			return 0
		}
		return math.Inf(1)
	}
	if m.LowerIsBetter() {
		return (c - b) / b
	}
	return (b - c) / b
}

// Line renders a finding, e.g.
//
//	FAIL  cell c2: e2e p99 regressed 31.2% (209us -> 274us), tolerance 10%, rank test p=0.0004
func (f Finding) Line(tol float64) string {
	name := "cell " + f.Cell
	if f.Metric.Name != "" {
		name += ": " + f.Metric.Label()
	}
	vals := fmt.Sprintf("(%s -> %s)", f.Metric.Format(f.Base), f.Metric.Format(f.Cand))
	if f.BaseMed != 0 || f.CandMed != 0 {
		vals = fmt.Sprintf("(per-second median %s -> %s; whole run %s -> %s", f.Metric.Format(f.BaseMed), f.Metric.Format(f.CandMed),
			f.Metric.Format(f.Base), f.Metric.Format(f.Cand))
		vals += ")"
	}
	if !math.IsNaN(f.P) && f.Metric.Name != "" {
		vals += ", rank test p=" + pValue(f.P)
	}
	note := ""
	if f.Note != "" {
		note = " [" + f.Note + "]"
	}
	if f.Stolen[0]+f.Stolen[1] > 0 {
		note += fmt.Sprintf(" [left out: %d of %d baseline and %d of %d candidate seconds, in which the host stole over %s%% of the CPU]",
			f.Stolen[0], f.Seconds[0], f.Stolen[1], f.Seconds[1], strconv.FormatFloat(f.MaxSteal, 'g', -1, 64))
	}
	switch {
	case f.Skipped:
		return fmt.Sprintf("skip  %s%s", name, note)
	case f.Regressed && f.Metric.Name == "":
		return fmt.Sprintf("FAIL  %s: %s", name, f.Note)
	case f.Regressed && f.Note == "not measured in the candidate":
		return fmt.Sprintf("FAIL  %s not measured in the candidate (baseline %s)", name, f.Metric.Format(f.Base))
	case f.Regressed:
		return fmt.Sprintf("FAIL  %s regressed %s %s, tolerance %s%s", name, pct(f.Worse), vals, Percent(tol), note)
	case f.Worse > tol+1e-9:
		return fmt.Sprintf("ok    %s worse by %s %s: beyond the tolerance %s, within run-to-run noise%s%s", name, pct(f.Worse), vals, Percent(tol), f.sensitivity(), note)
	case math.Abs(f.Worse) < 0.0005:
		return fmt.Sprintf("ok    %s unchanged %s%s", name, vals, note)
	case f.Worse > 0:
		return fmt.Sprintf("ok    %s worse by %s %s, within %s%s", name, pct(f.Worse), vals, Percent(tol), note)
	default:
		return fmt.Sprintf("ok    %s better by %s %s%s", name, pct(-f.Worse), vals, note)
	}
}

// sensitivity says how large a change this comparison could have found, when the noise hid
// one beyond the tolerance: the user then knows to gate on longer or repeated runs.
func (f Finding) sensitivity() string {
	switch {
	case math.IsNaN(f.Detectable):
		return ""
	case math.IsInf(f.Detectable, 1):
		return "; no change could show through noise this wide: lengthen or repeat the runs"
	}
	return fmt.Sprintf("; this noise hides any change below about %.0f%% (larger ones too, at times): lengthen or repeat the runs", f.Detectable*100)
}

// pct renders a relative change with one decimal: 23.4%.
func pct(x float64) string {
	if math.IsInf(x, 0) {
		return "inf%"
	}
	return fmt.Sprintf("%.1f%%", x*100)
}

// Percent renders a tolerance as given: 10%, 2.5%.
func Percent(x float64) string {
	return strconv.FormatFloat(x*100, 'f', -1, 64) + "%"
}

// Format renders a value of the metric: latencies in µs as 812us / 1.00ms / 2.10s, rates
// as 3000/s or bytes per second.
func (m Metric) Format(v float64) string {
	if m.Kind != "" {
		return FormatUS(v)
	}
	if strings.HasSuffix(m.Stat, "bytes_per_s") {
		return FormatBytes(v) + "/s"
	}
	return fmt.Sprintf("%.0f/s", v)
}

// FormatUS renders microseconds with three significant digits: 85.3us, 812us, 1.00ms, 2.10s.
func FormatUS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case v < 10:
		return fmt.Sprintf("%.2fus", v)
	case v < 100:
		return fmt.Sprintf("%.1fus", v)
	case v < 1000:
		return fmt.Sprintf("%.0fus", v)
	case v < 1e4:
		return fmt.Sprintf("%.2fms", v/1e3)
	case v < 1e5:
		return fmt.Sprintf("%.1fms", v/1e3)
	case v < 1e6:
		return fmt.Sprintf("%.0fms", v/1e3)
	}
	return fmt.Sprintf("%.2fs", v/1e6)
}

// FormatBytes renders a byte count in binary units: 512B, 1.5KB, 12.0MB.
func FormatBytes(v float64) string {
	units := []string{"B", "KB", "MB", "GB"}
	i := 0
	for v >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0fB", v)
	}
	return fmt.Sprintf("%.1f%s", v, units[i])
}

// Regressions lists the findings that fail the gate.
func Regressions(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Regressed {
			out = append(out, f)
		}
	}
	return out
}

// pValue renders a p-value with two significant digits, small ones as 1e-05.
func pValue(p float64) string {
	if p < 1e-4 {
		return strconv.FormatFloat(p, 'e', 0, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
