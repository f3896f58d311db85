package jsmodule

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"

	"github.com/mqbench/xk6-mqbench/internal/output/promrw"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// WriteResults (handleSummary) writes the run's results folder through internal/results and
// returns what k6 prints. data is k6's summary data: it supplies what only k6 knows (its own
// thresholds, such as dropped_iterations, and the test run's duration); everything else
// comes from the runner.
func (mi *ModuleInstance) WriteResults(data map[string]any) (map[string]any, error) {
	rm := mi.root
	s := rm.run.Report()
	s.FinishedAt = time.Now().UTC().Format(time.RFC3339Nano)
	if st, ok := data["state"].(map[string]any); ok {
		s.TestRunDurationMs = num(st["testRunDurationMs"])
	}
	k6m, _ := data["metrics"].(map[string]any)
	s.Thresholds = append(rm.mqThresholds(k6m), rm.k6Thresholds(k6m)...)
	s.ThresholdsOK = true
	for _, t := range s.Thresholds {
		s.ThresholdsOK = s.ThresholdsOK && t.OK
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		if m, ok := k6m[plan.DroppedKey(c.ID)].(map[string]any); ok {
			if v, ok := value(m["values"], "count"); ok {
				c.DroppedIterations = int64(v)
			}
		}
		for j := range s.Thresholds {
			t := &s.Thresholds[j]
			// k6 only keeps dropped_iterations once an iteration was dropped: none is a measured 0.
			if t.Value == nil && t.Cell == c.ID && plan.MetricName(t.Metric) == catalog.DroppedIterations && rm.isCount(t) {
				v := float64(c.DroppedIterations)
				t.Value = &v
			}
		}
		for _, t := range s.Thresholds {
			if t.Cell == c.ID {
				c.Thresholds = append(c.Thresholds, t)
			}
		}
	}
	if o := promrw.LastReport(); o != nil {
		s.Outputs = append(s.Outputs, *o)
	}
	text, err := report.Write(rm.resultsDir, &s, rm.run.Hists())
	if err == nil {
		err = rm.run.HlogError()
	}
	if rm.runner > 0 && err == nil {
		err = rm.writeShard(&s)
		text += fmt.Sprintf("runner %d of %d (segment %s, destination %s): shard written; `k6 x mqbench merge %s` judges the run\n",
			rm.runner, rm.dist.Runners, rm.segment, rm.destination, filepath.Dir(rm.resultsDir))
	}
	if err != nil {
		os.Stderr.WriteString("mqbench: results not fully written: " + err.Error() + "\n")
	}
	return map[string]any{"stdout": text}, nil
}

// writeNotRun writes the results folder of a run that measured nothing (the broker could
// not be reached or refused it), so a pipeline finds summary.json whatever the outcome.
func (rm *RootModule) writeNotRun(why string) {
	s := rm.run.Report()
	s.FinishedAt = time.Now().UTC().Format(time.RFC3339Nano)
	s.Complete, s.Error = false, strings.TrimPrefix(why, "mqbench: ")
	if _, err := report.Write(rm.resultsDir, &s, rm.run.Hists()); err != nil {
		os.Stderr.WriteString("mqbench: results not written: " + err.Error() + "\n")
	}
}

// mqThresholds are mqbench's own verdicts (final ones when the run got that far). k6 judged
// each through its gauge: a gauge k6 saw failing at the end fails the threshold too.
func (rm *RootModule) mqThresholds(k6m map[string]any) []results.Threshold {
	var out []results.Threshold
	for _, j := range rm.judge(true) {
		ok := j.res.OK
		if k6ok, seen := k6Verdict(k6m, plan.VerdictKey(j.th), plan.VerdictExpr.K6()); seen {
			ok = ok && k6ok
		}
		// No data fails (the verdict gauge said 1): the status says why it failed.
		status := j.res.Status()
		if status == results.StatusPass && !ok {
			status = results.StatusFail
		}
		t := results.Threshold{Metric: j.th.Key, Cell: j.th.Cell, Expression: j.th.K6Expr, Source: j.th.Source,
			OK: ok, Status: status, EvaluatedBy: "mqbench", AbortOnFail: j.th.AbortOnFail}
		if j.res.Measured {
			v := j.res.Value
			t.Value = &v
		}
		if j.th.Time {
			t.Unit = "ms"
		}
		out = append(out, t)
	}
	return out
}

// k6Thresholds are the thresholds k6 judged itself (its own metrics), with their values.
func (rm *RootModule) k6Thresholds(k6m map[string]any) []results.Threshold {
	var out []results.Threshold
	keys := make([]string, 0, len(k6m))
	for k := range k6m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		m, _ := k6m[key].(map[string]any)
		ths, _ := m["thresholds"].(map[string]any)
		if len(ths) == 0 || plan.IsVerdictKey(key) {
			continue
		}
		exprs := make([]string, 0, len(ths))
		for e := range ths {
			exprs = append(exprs, e)
		}
		sort.Strings(exprs)
		for _, expr := range exprs {
			ok, _ := k6Verdict(k6m, key, expr)
			t := results.Threshold{Metric: key, Cell: plan.CellOfKey(key), Expression: expr, Source: rm.plan.SourceOf(key, expr), OK: ok, EvaluatedBy: "k6"}
			if e, ok := rm.plan.ExprOf(key, expr); ok {
				if f, has := value(m["values"], e.Stat()); has {
					t.Value = &f
				}
			}
			if c, _ := m["contains"].(string); c == "time" {
				t.Unit = "ms"
			}
			out = append(out, t)
		}
	}
	return out
}

// k6Verdict reads k6's verdict of one threshold from the summary data.
func k6Verdict(k6m map[string]any, key, expr string) (ok, seen bool) {
	m, _ := k6m[key].(map[string]any)
	ths, _ := m["thresholds"].(map[string]any)
	t, _ := ths[expr].(map[string]any)
	if t == nil {
		return true, false
	}
	ok, _ = t["ok"].(bool)
	return ok, true
}

// value reads one of a k6 metric's values (k6 hands them over as a Go map of float64 or,
// after a trip through JavaScript, of any).
func value(values any, key string) (float64, bool) {
	switch m := values.(type) {
	case map[string]float64:
		v, ok := m[key]
		return v, ok
	case map[string]any:
		v, ok := m[key]
		return num(v), ok
	}
	return 0, false
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int64:
		return float64(x)
	case int:
		return float64(x)
	}
	return 0
}

// isCount reports whether a threshold k6 judged tests a count.
func (rm *RootModule) isCount(t *results.Threshold) bool {
	e, ok := rm.plan.ExprOf(t.Metric, t.Expression)
	return ok && e.Agg == "count"
}
