package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
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
)

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
	expr, msg := threshold.Parse(e.Source, m)
	if msg != "" {
		d.errorf(srcPath, "%s", msg)
		return Expression{}, false
	}
	e.Expr = expr
	return e, true
}
