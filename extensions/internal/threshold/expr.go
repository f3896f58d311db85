// Package threshold is the one grammar of threshold expressions: the scenario's form with
// units ("p(99) < 250us", checked against the metric catalogue) and k6's form that mqbench
// hands to k6 and stores in summary.json ("p(99)<0.25", time in ms). The scenario parser,
// the verdicts, merge and the reports all read expressions through it.
package threshold

import (
	"fmt"
	"strconv"
	"strings"
)

// Expr is one parsed threshold expression in k6's form: "p(99)<5", "count==0", "value>=1".
type Expr struct {
	Agg   string  // avg | min | max | med | p | count | rate | value
	P     float64 // the percentile, when Agg is "p"
	Op    string  // < <= > >= == === !=
	Limit float64
}

// ParseK6 reads the k6 form the scenario parser produced (units already converted).
func ParseK6(s string) (Expr, error) {
	s = strings.ReplaceAll(s, " ", "")
	var e Expr
	rest := s
	if strings.HasPrefix(s, "p(") {
		j := strings.IndexByte(s, ')')
		if j < 0 {
			return e, fmt.Errorf("threshold %q: unclosed p(", s)
		}
		p, err := strconv.ParseFloat(s[2:j], 64)
		if err != nil {
			return e, fmt.Errorf("threshold %q: bad percentile", s)
		}
		e.Agg, e.P, rest = "p", p, s[j+1:]
	} else {
		i := strings.IndexAny(s, "<>=!")
		if i <= 0 {
			return e, fmt.Errorf("threshold %q: no operator", s)
		}
		e.Agg, rest = s[:i], s[i:]
	}
	for _, op := range operators {
		if strings.HasPrefix(rest, op) {
			e.Op = op
			break
		}
	}
	if e.Op == "" {
		return e, fmt.Errorf("threshold %q: no operator", s)
	}
	v, err := strconv.ParseFloat(rest[len(e.Op):], 64)
	if err != nil {
		return e, fmt.Errorf("threshold %q: bad value", s)
	}
	e.Limit = v
	return e, nil
}

// MustK6 is ParseK6 for an expression written out in code (a test's table); it panics on a
// bad one.
func MustK6(s string) Expr {
	e, err := ParseK6(s)
	if err != nil {
		panic(err)
	}
	return e
}

// Holds says whether the measured value v satisfies the expression (k6's comparison).
func (e Expr) Holds(v float64) bool {
	switch e.Op {
	case "<":
		return v < e.Limit
	case "<=":
		return v <= e.Limit
	case ">":
		return v > e.Limit
	case ">=":
		return v >= e.Limit
	case "==", "===":
		return v == e.Limit
	case "!=":
		return v != e.Limit
	}
	return false
}

// Key is the aggregation as k6 names it in summaries ("p(99)", "count").
func (e Expr) Key() string {
	if e.Agg == "p" {
		return "p(" + strconv.FormatFloat(e.P, 'f', -1, 64) + ")"
	}
	return e.Agg
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// K6 is the expression in k6's form: "p(99)<0.25".
func (e Expr) K6() string { return e.Key() + e.Op + formatFloat(e.Limit) }

// Stat is the aggregation as k6 names it among a metric's values: "p(99.9)", "count", "avg".
func (e Expr) Stat() string {
	if e.Agg == "p" {
		return "p(" + strconv.FormatFloat(e.P, 'f', -1, 64) + ")"
	}
	return e.Agg
}
