package scenario

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
)

// Thresholds use k6's own syntax ("p(99) < 5ms") so users can carry them over from k6
// docs; they are checked here, against the metric catalogue, because k6 would only reject a
// bad one after the brokers are up, and would not reject a unit on a counter at all.

// rawExpression is the long form of a threshold expression, as k6 spells it.
type rawExpression struct {
	Threshold      string `yaml:"threshold"`
	AbortOnFail    bool   `yaml:"abort_on_fail"`
	DelayAbortEval string `yaml:"delay_abort_eval"`
}

var (
	metricKeyRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(\{.*\})?$`)
	tagNameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	numberRE    = regexp.MustCompile(`^([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(\S*)$`)
	percentRE   = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?$`)
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

// thresholds reads a `thresholds:` mapping (metric → list of expressions) at path.
func (d *decoder) thresholds(n *yaml.Node, path string) []Threshold {
	if n.Kind == 0 || isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(path, "expected a mapping of metric name to a list of expressions, got %s", describe(n))
		return nil
	}
	var out []Threshold
	for _, p := range d.pairs(n, path, 0) {
		key := p.key.Value
		fp := join(path, key)
		d.keys[fp] = p.key
		m, ok := d.metric(p.key, fp)
		list := d.resolve(p.val)
		if list == nil {
			continue
		}
		d.vals[fp] = list
		if list.Kind != yaml.SequenceNode {
			d.errorf(fp, "expected a list of threshold expressions like [\"p(99) < 5ms\"], got %s", describe(list))
			continue
		}
		if len(list.Content) == 0 {
			d.errorf(fp, "needs at least one expression")
			continue
		}
		th := Threshold{Metric: key, Line: p.key.Line}
		for i, item := range list.Content {
			if e, good := d.expression(item, fmt.Sprintf("%s[%d]", fp, i), m, ok); good {
				th.Expressions = append(th.Expressions, e)
			}
		}
		out = append(out, th)
	}
	return out
}

// metric checks a threshold key: a catalogue metric, optionally with a k6 tag filter
// ("mq_e2e_latency{cell:c1}").
func (d *decoder) metric(k *yaml.Node, path string) (catalog.Metric, bool) {
	g := metricKeyRE.FindStringSubmatch(k.Value)
	if g == nil {
		d.add(k, path, "expected a metric name optionally followed by a tag filter, like mq_e2e_latency{cell:c1}")
		return catalog.Metric{}, false
	}
	m, ok := catalog.Find(g[1])
	if !ok {
		var names []string
		for _, list := range [][]catalog.Metric{catalog.Metrics, catalog.BuiltinThresholdMetrics} {
			for _, x := range list {
				names = append(names, x.Name)
			}
		}
		if s := closest(g[1], names); s != "" {
			d.add(k, path, "unknown metric %q (did you mean %q?)", g[1], s)
		} else {
			d.add(k, path, "unknown metric %q (valid: %s)", g[1], strings.Join(names, ", "))
		}
	}
	if g[2] != "" {
		if msg := checkFilter(g[2]); msg != "" {
			d.add(k, path, "%s", msg)
		}
	}
	return m, ok
}

// checkFilter validates a k6 sub-metric tag filter "{k:v,...}": k6 splits on commas and on
// the first colon, and an empty tag or value selects nothing without telling anyone.
func checkFilter(f string) string {
	body := f[1 : len(f)-1]
	for _, part := range strings.Split(body, ",") {
		k, v, found := strings.Cut(part, ":")
		k, v = strings.TrimSpace(k), strings.Trim(strings.TrimSpace(v), `"'`)
		if !found || !tagNameRE.MatchString(k) || v == "" || strings.ContainsAny(v, "{}") {
			return fmt.Sprintf("bad tag filter %s (expected {tag:value,...})", f)
		}
	}
	return ""
}

// expression reads one list item: a string, or the long form mapping.
func (d *decoder) expression(item *yaml.Node, path string, m catalog.Metric, known bool) (Expression, bool) {
	item = d.resolve(item)
	if item == nil || !d.spend(item) {
		return Expression{}, false
	}
	var e Expression
	srcPath := path
	switch {
	case item.Kind == yaml.ScalarNode && item.ShortTag() == strTag:
		d.vals[path] = item
		e.Source = item.Value
	case item.Kind == yaml.MappingNode:
		var raw rawExpression
		d.decode(item, reflect.ValueOf(&raw).Elem(), path)
		srcPath = path + ".threshold"
		if !d.set(srcPath) {
			d.missing(srcPath)
			return Expression{}, false
		}
		if d.bad[srcPath] {
			return Expression{}, false
		}
		e.Source, e.AbortOnFail = raw.Threshold, raw.AbortOnFail
		if dp := path + ".delay_abort_eval"; d.usable(dp) {
			if _, err := time.ParseDuration(raw.DelayAbortEval); err != nil {
				d.errorf(dp, "expected a duration like 10s, got %q", raw.DelayAbortEval)
			} else if !raw.AbortOnFail {
				d.errorf(dp, "only applies with abort_on_fail: true")
			} else {
				e.DelayAbortEval = raw.DelayAbortEval
			}
		}
	default:
		d.vals[path] = item
		d.errorf(path, "expected a threshold expression string like \"p(99) < 5ms\" or a mapping with threshold and abort_on_fail, got %s", describe(item))
		return Expression{}, false
	}
	if !known {
		return Expression{}, false // the metric key was already reported
	}
	expr, msg := parseExpr(e.Source, m)
	if msg != "" {
		d.errorf(srcPath, "%s", msg)
		return Expression{}, false
	}
	e.Expr = expr
	return e, true
}

// parseExpr checks "AGGREGATION OPERATOR VALUE[UNIT]" against metric m and returns the k6
// form, with time values converted to milliseconds ("p(99) < 250us" → "p(99)<0.25").
func parseExpr(src string, m catalog.Metric) (string, string) {
	s := strings.TrimSpace(src)
	usage := fmt.Sprintf("expected AGGREGATION OPERATOR VALUE like \"p(99) < 5ms\", got %q", src)
	var agg, rest string
	if strings.HasPrefix(s, "p(") {
		j := strings.IndexByte(s, ')')
		if j < 0 {
			return "", usage
		}
		pct := strings.TrimSpace(s[2:j])
		f, err := strconv.ParseFloat(pct, 64)
		if !percentRE.MatchString(pct) || err != nil || f <= 0 || f >= 100 {
			return "", fmt.Sprintf("percentile in %q must be a number between 0 and 100 (exclusive), like p(99) or p(99.99)", s[:j+1])
		}
		agg, rest = "p("+pct+")", s[j+1:]
	} else {
		i := strings.IndexAny(s, "<>=! \t")
		if i <= 0 {
			return "", usage
		}
		agg, rest = s[:i], s[i:]
	}
	allowed := catalog.Aggregations(m.Kind)
	name := agg
	if strings.HasPrefix(agg, "p(") {
		name = "p(N)"
	}
	if !slices.Contains(allowed, name) {
		if !slices.Contains([]string{"avg", "min", "max", "med", "p(N)", "count", "rate", "value"}, name) {
			return "", fmt.Sprintf("unknown aggregation %q in %q (valid for %s: %s)", agg, src, m.Name, strings.Join(allowed, ", "))
		}
		return "", fmt.Sprintf("aggregation %q does not apply to %s, a %s metric (valid: %s)", agg, m.Name, m.Kind, strings.Join(allowed, ", "))
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
		return "", fmt.Sprintf("expected an operator (<, <=, >, >=, ==, ===, !=) after %q in %q", agg, src)
	}
	g := numberRE.FindStringSubmatch(strings.TrimSpace(rest[len(op):]))
	if g == nil {
		return "", fmt.Sprintf("expected a number after %q in %q", op, src)
	}
	v, err := strconv.ParseFloat(g[1], 64)
	if err != nil {
		return "", fmt.Sprintf("value %q in %q is out of range", g[1], src)
	}
	if unit := g[2]; unit != "" {
		conv, ok := timeUnits[unit]
		switch {
		case !m.Time:
			return "", fmt.Sprintf("unit %q does not apply: %s is a %s, not a time metric", unit, m.Name, m.Kind)
		case !ok:
			return "", fmt.Sprintf("unknown time unit %q in %q (valid: ns, us, µs, ms, s, m)", unit, src)
		}
		v = conv(v)
	}
	if msg := vacuous(src, m, op, v); msg != "" {
		return "", msg
	}
	return agg + op + strconv.FormatFloat(v, 'f', -1, 64), ""
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
