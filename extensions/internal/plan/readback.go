package plan

import (
	"sort"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/threshold"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// Cell is the index of the cell a k6 scenario of this plan belongs to.
func (p *Plan) Cell(k6Scenario string) (int, bool) {
	i, ok := p.cells[k6Scenario]
	return i, ok
}

// ScenarioNames lists the plan's k6 scenario names, sorted (for messages).
func (p *Plan) ScenarioNames() []string {
	out := make([]string, 0, len(p.cells))
	for k := range p.cells {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// SourceOf is the scenario's wording of a k6-judged threshold (the k6 expression if none).
func (p *Plan) SourceOf(key, expr string) string {
	for _, s := range p.Sources {
		if s.Metric == key && s.Expr.K6() == expr {
			return s.Source
		}
	}
	return expr
}

// ExprOf is the expression behind a k6 threshold as k6 reports it back (key, k6's text):
// the plan made that text, so the typed value is looked up, not parsed again.
func (p *Plan) ExprOf(key, expr string) (threshold.Expr, bool) {
	for _, t := range p.Options.Thresholds[key] {
		if t.Expr.K6() == expr {
			return t.Expr, true
		}
	}
	return threshold.Expr{}, false
}

// K6Judged lists the thresholds k6 judges in a single run (its own metrics), with the
// scenario's wording: what a merge must judge itself on the merged run.
func (p *Plan) K6Judged() []verdict.K6Threshold {
	var out []verdict.K6Threshold
	for key, list := range p.Options.Thresholds {
		if IsVerdictKey(key) {
			continue // the carrier of mqbench's own verdicts, judged on the merged data
		}
		for _, t := range list {
			out = append(out, verdict.K6Threshold{Key: key, Expr: t.Expr, Source: p.SourceOf(key, t.Expr.K6())})
		}
	}
	return out
}

// IsVerdictKey reports whether a k6 threshold key is the gauge of an mqbench verdict.
func IsVerdictKey(key string) bool { return strings.HasPrefix(key, verdict.GaugeMetric) }

// CellOfKey reads the cell a k6 threshold key belongs to from its cell or scenario filter.
func CellOfKey(key string) string {
	_, _, cell := verdict.ParseKey(key)
	return cell
}
