package verdict

import (
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// GaugeMetric is the k6 metric that carries mqbench's verdicts to k6: one series per
// threshold (tag "threshold" = Threshold.ID), 1 while the threshold fails, 0 while it holds.
// k6 judges it with "value==0", so k6 still owns the exit code (99), abortOnFail and
// delayAbortEval, while the value judged comes from mqbench's exact data.
const GaugeMetric = catalog.ThresholdFailed

// GaugeTag is the tag naming the threshold on GaugeMetric samples.
const GaugeTag = "threshold"

// Threshold is one expression on one mqbench metric, as the run evaluates it.
type Threshold struct {
	ID     string            // the GaugeTag value: Key and K6Expr, without commas (k6 splits tag filters on them)
	Metric string            // mq_e2e_latency
	Key    string            // with its filter, as k6 would key it: mq_e2e_latency{cell:c1}
	Filter map[string]string // tag → value; cells whose tags contain all of them are judged together
	Cell   string            // the cell id when the filter names one cell, else ""
	Stage  string            // a profile's stage the filter names ({stage: spike}), else ""
	Expr   threshold.Expr
	K6Expr string // p(99)<5 (time in ms)
	Source string // as the scenario wrote it
	Time   bool   // values in ms
	// AbortOnFail and DelayAbortEval are handed to k6 on the gauge's threshold.
	AbortOnFail    bool
	DelayAbortEval string
}

// K6Threshold is a threshold on one of k6's own metrics, as the scenario's k6 options hold
// it (key with its filter, expression, the scenario's wording): the plan lists them, a merge
// judges them.
type K6Threshold struct {
	Key    string
	Expr   threshold.Expr
	Source string
}

// ParseKey splits a k6 threshold key ("mq_e2e_latency{cell:c1}") into its metric, its tag
// filter, and the cell the filter names (by its cell tag, or a cell's k6 scenario), if any.
func ParseKey(key string) (metric string, filter map[string]string, cell string) {
	metric, filter = key, map[string]string{}
	if i := strings.IndexByte(key, '{'); i >= 0 && strings.HasSuffix(key, "}") {
		metric = key[:i]
		for _, kv := range strings.Split(key[i+1:len(key)-1], ",") {
			k, v, _ := strings.Cut(kv, ":")
			filter[strings.Trim(strings.TrimSpace(k), `"'`)] = strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	cell = filter["cell"]
	if sc := filter["scenario"]; cell == "" && sc != "" {
		if c, ok := catalog.CellOfScenario(sc); ok {
			cell = c
		} else {
			cell = sc
		}
	}
	return metric, filter, cell
}

// Of builds a threshold from its k6 key ("mq_e2e_latency{cell:c1}") and the expression the
// scenario parser or the plan made: typed from the parser to the verdict, never re-read.
func Of(key string, e threshold.Expr, source string, time bool) Threshold {
	k6Expr := e.K6()
	t := Threshold{Key: key, K6Expr: k6Expr, Source: source, Expr: e, Time: time}
	t.Metric, t.Filter, t.Cell = ParseKey(key)
	t.Stage = t.Filter[StageTag]
	t.ID = strings.ReplaceAll(key+" "+k6Expr, ",", ";")
	return t
}

// New is Of for an expression written out in k6's form, as a test states one.
func New(key, k6Expr, source string, time bool) (Threshold, error) {
	e, err := threshold.ParseK6(k6Expr)
	if err != nil {
		return Threshold{}, err
	}
	return Of(key, e, source, time), nil
}

// Source is the measured data thresholds are judged on, cell by cell.
type Source interface {
	// CellTags are each cell's tags (cell, size, rate, broker, mq_scenario, testid).
	CellTags() []map[string]string
	// Trend is a cell's distribution of a time metric (nil: the metric is not a trend).
	Trend(cell int, metric string) *hist.Hist
	// Count is a cell's counter value; ok false while it is not known (the ledger's lost
	// count before the cell's drain ends).
	Count(cell int, metric string) (v float64, ok bool)
	// Gauge is a cell's gauge: last, min and max sampled value; ok false before any sample.
	Gauge(cell int, metric string) (last, min, max float64, ok bool)
}

// StageTag is the filter key selecting one named stage of a profile: not a tag of the cells'
// samples, it selects the messages whose intended send time fell in the stage.
const StageTag = "stage"

// StageSource is a Source that keeps a profile's distributions per named stage.
type StageSource interface {
	// StageTrend is a cell's distribution of a time metric over a named stage (nil: no such
	// stage in the cell, or the metric is not kept per stage).
	StageTrend(cell int, stage, metric string) *hist.Hist
}

// Starter is a Source that knows which cells started: a cell that never did (broker
// unreachable, run stopped first) has no data, though its counters read 0.
type Starter interface {
	CellStarted(cell int) bool
}

// A threshold's status. No data is not a pass: a gate must not pass what it did not measure.
const (
	StatusPass   = "pass"
	StatusFail   = "fail"
	StatusNoData = "no data"
)

// Result is one evaluation.
type Result struct {
	// OK: the threshold holds on measured data (false when nothing was measured).
	OK bool
	// Value is what was compared (ms for time metrics); Measured false when no selected cell
	// had data (none selected, none started, no samples): the threshold then fails as no data.
	Value    float64
	Measured bool
}

// Status is pass, fail or no data.
func (r Result) Status() string {
	switch {
	case !r.Measured:
		return StatusNoData
	case r.OK:
		return StatusPass
	}
	return StatusFail
}

// matches reports whether a cell's tags satisfy the filter. k6's own scenario tag is
// <cell>_publish or <cell>_consume; either selects the cell.
func (t *Threshold) matches(tags map[string]string) bool {
	for k, v := range t.Filter {
		if k == StageTag {
			continue // selects messages within a cell (value), not cells
		}
		if k == "scenario" {
			if v != catalog.PublishScenario(tags["cell"]) && v != catalog.ConsumeScenario(tags["cell"]) {
				return false
			}
			continue
		}
		if tags[k] != v {
			return false
		}
	}
	return true
}

// Eval judges the threshold on src now. A counter's "rate" is per cell, over the cells'
// measured time (Measurer); elapsed, the test run's duration so far, serves only a source
// that cannot tell it (k6's rule).
func (t *Threshold) Eval(src Source, elapsed time.Duration) Result {
	st, knows := src.(Starter)
	var cells []int
	for i, tags := range src.CellTags() {
		if t.matches(tags) && (!knows || st.CellStarted(i)) {
			cells = append(cells, i)
		}
	}
	v, measured := t.value(src, cells, elapsed)
	return Result{OK: measured && t.Expr.Holds(v), Value: v, Measured: measured}
}

func (t *Threshold) value(src Source, cells []int, elapsed time.Duration) (float64, bool) {
	if t.Stage != "" {
		return t.stageValue(src, cells)
	}
	if h := trendOf(src, cells, t.Metric); h != nil {
		if len(cells) > 1 {
			h = hist.New()
			for _, c := range cells {
				h.Merge(src.Trend(c, t.Metric))
			}
		}
		return trendValue(t.Expr, h.View(), t.Time)
	}
	if last, lo, hi, ok := gaugeOf(src, cells, t.Metric); ok || t.Expr.Agg == "value" {
		switch t.Expr.Agg {
		case "min":
			return lo, ok
		case "max":
			return hi, ok
		}
		return last, ok
	}
	if t.Expr.Agg == "rate" {
		return counterRate(src, t.Metric, cells, elapsed)
	}
	sum, known := 0.0, false
	for _, c := range cells {
		if v, ok := src.Count(c, t.Metric); ok {
			sum, known = sum+v, true
		}
	}
	return sum, known
}

// stageValue judges the selected cells' distributions over the named stage: no data when
// none of them has the stage (or the source keeps none).
func (t *Threshold) stageValue(src Source, cells []int) (float64, bool) {
	ss, ok := src.(StageSource)
	if !ok {
		return 0, false
	}
	h, any := hist.New(), false
	for _, c := range cells {
		if sh := ss.StageTrend(c, t.Stage, t.Metric); sh != nil {
			h.Merge(sh)
			any = true
		}
	}
	if !any {
		return 0, false
	}
	return trendValue(t.Expr, h.View(), t.Time)
}

// trendOf is the first selected cell's distribution of metric; nil when no cell is selected
// or the metric is not a trend.
func trendOf(src Source, cells []int, metric string) *hist.Hist {
	if len(cells) == 0 {
		return nil
	}
	return src.Trend(cells[0], metric)
}

// gaugeOf combines the cells' gauges: the last of the latest cell with samples, the lowest
// min, the highest max.
func gaugeOf(src Source, cells []int, metric string) (last, lo, hi float64, ok bool) {
	for _, c := range cells {
		l, mn, mx, has := src.Gauge(c, metric)
		if !has {
			continue
		}
		if !ok || mn < lo {
			lo = mn
		}
		if !ok || mx > hi {
			hi = mx
		}
		last, ok = l, true
	}
	return last, lo, hi, ok
}

// trendValue is k6's trend aggregation on a distribution; values in ms when timeMs.
func trendValue(e threshold.Expr, v hist.View, timeMs bool) (float64, bool) {
	if v.Count == 0 {
		return 0, false
	}
	var ns float64
	switch e.Agg {
	case "avg":
		ns = v.Mean
	case "min":
		ns = v.Min
	case "max":
		ns = v.Max
	case "med":
		ns = v.Quantile(50)
	case "p":
		ns = v.Quantile(e.P)
	case "count":
		return float64(v.Count), true
	default:
		return 0, false
	}
	if timeMs {
		return ns / 1e6, true
	}
	return ns, true
}
