package threshold

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
)

var (
	numberRE  = regexp.MustCompile(`^([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(\S*)$`)
	percentRE = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?$`)
)

// operators in k6's threshold grammar, longest first so "<=" is not read as "<".
var operators = []string{"===", "==", "!=", "<=", ">=", "<", ">"}

// timeUnits converts a threshold value to milliseconds, the unit k6 keeps time trends in.
var timeUnits = map[string]func(float64) float64{
	"ns": func(v float64) float64 { return v / 1e6 },
	"us": func(v float64) float64 { return v / 1e3 },
	"µs": func(v float64) float64 { return v / 1e3 }, // U+00B5 micro sign
	"μs": func(v float64) float64 { return v / 1e3 }, // U+03BC Greek mu
	"ms": func(v float64) float64 { return v },
	"s":  func(v float64) float64 { return v * 1e3 },
	"m":  func(v float64) float64 { return v * 60e3 },
}

// Parse checks "AGGREGATION OPERATOR VALUE[UNIT]" against metric m and returns it with time
// values converted to milliseconds ("p(99) < 250us" → p(99)<0.25), or what is wrong with it.
func Parse(src string, m catalog.Metric) (Expr, string) {
	s := strings.TrimSpace(src)
	usage := fmt.Sprintf("expected AGGREGATION OPERATOR VALUE like \"p(99) < 5ms\", got %q", src)
	var agg, rest string
	var pctf float64 // the percentile, for p(N)
	if strings.HasPrefix(s, "p(") {
		j := strings.IndexByte(s, ')')
		if j < 0 {
			return Expr{}, usage
		}
		pct := strings.TrimSpace(s[2:j])
		f, err := strconv.ParseFloat(pct, 64)
		if !percentRE.MatchString(pct) || err != nil || f <= 0 || f >= 100 {
			return Expr{}, fmt.Sprintf("percentile in %q must be a number between 0 and 100 (exclusive), like p(99) or p(99.99)", s[:j+1])
		}
		agg, rest, pctf = "p("+pct+")", s[j+1:], f
	} else {
		i := strings.IndexAny(s, "<>=! \t")
		if i <= 0 {
			return Expr{}, usage
		}
		agg, rest = s[:i], s[i:]
	}
	allowed := catalog.ThresholdAggregations(m)
	name := agg
	if strings.HasPrefix(agg, "p(") {
		name = "p(N)"
	}
	if name == "rate" && m.Kind == catalog.Counter && catalog.Builtin(m.Name) {
		return Expr{}, fmt.Sprintf("%q cannot be judged per cell: %s is k6's, and k6 would divide its count by the whole test run's duration (every cell with its warm-up and drain, and the gaps between cells), not by the cell's measured time; use count (like \"count == 0\")", src, m.Name)
	}
	if !slices.Contains(allowed, name) {
		if !slices.Contains([]string{"avg", "min", "max", "med", "p(N)", "count", "rate", "value"}, name) {
			return Expr{}, fmt.Sprintf("unknown aggregation %q in %q (valid for %s: %s)", agg, src, m.Name, strings.Join(allowed, ", "))
		}
		msg := fmt.Sprintf("aggregation %q does not apply to %s, a %s metric (valid: %s)", agg, m.Name, m.Kind, strings.Join(allowed, ", "))
		if name == "rate" && m.Kind == catalog.Trend {
			msg += "; messages per second are a rate on a counter, like mq_messages_received: [\"rate > 250\"]"
		}
		return Expr{}, msg
	}
	rest = strings.TrimSpace(rest)
	op := ""
	for _, o := range operators {
		if strings.HasPrefix(rest, o) {
			op = o
			break
		}
	}
	if op == "" {
		return Expr{}, fmt.Sprintf("expected an operator (<, <=, >, >=, ==, ===, !=) after %q in %q", agg, src)
	}
	g := numberRE.FindStringSubmatch(strings.TrimSpace(rest[len(op):]))
	if g == nil {
		return Expr{}, fmt.Sprintf("expected a number after %q in %q", op, src)
	}
	v, err := strconv.ParseFloat(g[1], 64)
	if err != nil {
		return Expr{}, fmt.Sprintf("value %q in %q is out of range", g[1], src)
	}
	if unit := g[2]; unit != "" {
		conv, ok := timeUnits[unit]
		switch {
		case !m.Time:
			return Expr{}, fmt.Sprintf("unit %q does not apply: %s is a %s, not a time metric", unit, m.Name, m.Kind)
		case !ok:
			return Expr{}, fmt.Sprintf("unknown time unit %q in %q (valid: ns, us, µs, ms, s, m)", unit, src)
		}
		v = conv(v)
	}
	if msg := vacuous(src, m, op, v); msg != "" {
		return Expr{}, msg
	}
	if name == "p(N)" {
		return Expr{Agg: "p", P: pctf, Op: op, Limit: v}, ""
	}
	return Expr{Agg: agg, Op: op, Limit: v}, ""
}

// vacuous says when an expression can never hold or never fail, whatever is measured: every
// mqbench figure (latency, count, per-second rate, gauge) is at least 0, and a k6 rate
// metric lies in [0, 1]. Such a threshold is a typo (a sign, a unit), not an SLA.
func vacuous(src string, m catalog.Metric, op string, v float64) string {
	lo, hi := 0.0, math.Inf(1)
	if m.Kind == catalog.Rate {
		hi = 1
	}
	never := func(why string) string {
		return fmt.Sprintf("%q can never hold: %s", src, why)
	}
	always := func(why string) string {
		return fmt.Sprintf("%q can never fail: %s", src, why)
	}
	bounds := fmt.Sprintf("%s is never below %g", m.Name, lo)
	if !math.IsInf(hi, 1) {
		bounds = fmt.Sprintf("%s lies between %g and %g", m.Name, lo, hi)
	}
	switch op {
	case "<":
		if v <= lo {
			return never(bounds)
		}
		if v > hi {
			return always(bounds)
		}
	case "<=":
		if v < lo {
			return never(bounds)
		}
		if v >= hi {
			return always(bounds)
		}
	case ">":
		if v >= hi {
			return never(bounds)
		}
		if v < lo {
			return always(bounds)
		}
	case ">=":
		if v > hi {
			return never(bounds)
		}
		if v <= lo {
			return always(bounds)
		}
	case "==", "===":
		if v < lo || v > hi {
			return never(bounds)
		}
	case "!=":
		if v < lo || v > hi {
			return always(bounds)
		}
	}
	return ""
}
