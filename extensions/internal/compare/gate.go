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
	Cell      string
	Metric    Metric
	Base      float64
	Cand      float64
	Worse     float64 // relative change, positive = worse (latency up or throughput down)
	Regressed bool    // worse beyond the tolerance, or not measured / not completed
	Skipped   bool    // measured by neither run
	Note      string
}

// Gate compares every cell of the baseline with the same cell (by id) of the candidate.
// A cell missing or not completed in the candidate, or a metric the baseline has and the
// candidate lacks, counts as a regression: the gate cannot vouch for it.
func Gate(base, cand *results.Run, metrics []Metric, tol float64) []Finding {
	var out []Finding
	for _, bc := range base.Cells {
		cc := cand.Cell(bc.ID)
		switch {
		case cc == nil:
			out = append(out, Finding{Cell: bc.ID, Regressed: true, Note: "missing in the candidate"})
			continue
		case cc.Status != "" && cc.Status != "complete":
			out = append(out, Finding{Cell: bc.ID, Regressed: true, Note: "candidate cell " + cc.Status + " (did not run to its end)"})
			continue
		}
		for _, m := range metrics {
			f := Finding{Cell: bc.ID, Metric: m}
			b, bn, bok := Value(base, bc.ID, m)
			c, cn, cok := Value(cand, bc.ID, m)
			f.Base, f.Cand = b, c
			switch {
			case !bok && !cok:
				f.Skipped, f.Note = true, "measured in neither run"
			case !cok:
				f.Regressed, f.Note = true, "not measured in the candidate"
			case !bok:
				f.Skipped, f.Note = true, "no baseline figure"
			default:
				f.Worse = worse(m, b, c)
				f.Regressed = f.Worse > tol+1e-9
				if m.Q > 0 {
					if n := min(bn, cn); n > 0 && float64(n) < 1/(1-m.Q)-1e-6 {
						f.Note = fmt.Sprintf("only %d samples, too few to resolve %s: it is their max", n, m.Stat)
					}
				}
			}
			out = append(out, f)
		}
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
//	FAIL  cell c2: e2e p99 regressed 23.4% (812us -> 1.00ms), tolerance 10%
func (f Finding) Line(tol float64) string {
	name := "cell " + f.Cell
	if f.Metric.Name != "" {
		name += ": " + f.Metric.Label()
	}
	vals := fmt.Sprintf("(%s -> %s)", f.Metric.Format(f.Base), f.Metric.Format(f.Cand))
	note := ""
	if f.Note != "" {
		note = " [" + f.Note + "]"
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
	case math.Abs(f.Worse) < 0.0005:
		return fmt.Sprintf("ok    %s unchanged %s%s", name, vals, note)
	case f.Worse > 0:
		return fmt.Sprintf("ok    %s worse by %s %s, within %s%s", name, pct(f.Worse), vals, Percent(tol), note)
	default:
		return fmt.Sprintf("ok    %s better by %s %s%s", name, pct(-f.Worse), vals, note)
	}
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
