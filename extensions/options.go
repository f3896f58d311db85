package mqbench

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// cellGap separates cells. k6 hands a starting scenario its pre-allocated VUs from one shared
// pool and blocks until they are back; if the previous cell's VUs return a few ms late, the
// new cell's clock is already running and its first ticks fire in a burst that is dropped.
const cellGap = time.Second

// summaryTrendStats: the full tail, so k6's own summary and handleSummary data carry it too.
var summaryTrendStats = []string{"avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "p(99.9)", "p(99.99)", "p(99.999)", "p(99.9999)"}

// scenario names in k6 for a cell.
func publishScenario(cellID string) string { return cellID + "_publish" }
func consumeScenario(cellID string) string { return cellID + "_consume" }

// buildOptions turns a scenario into k6 options: per cell, a constant-arrival-rate producer
// scenario and a one-iteration consumer scenario that lasts until the cell's drain ends;
// cells run one after another. Thresholds apply per cell (a p99 across a 256 B cell and a
// 1 MB cell means nothing).
//
// runners > 1 builds a distributed runner's options (distributed.go): VU budgets in multiples
// of runners (k6 splits an arrival rate by maxVUs), one consumer VU per runner, and no
// verdict of its own (thresholds stay in the returned verdicts for the merge; dropped
// iterations are counted, not judged).
func buildOptions(sc *scenario.Scenario, runID string, runners int) (map[string]any, []thresholdSource, []verdict.Threshold) {
	var sources []thresholdSource
	var verdicts []verdict.Threshold
	scenarios := map[string]any{}
	thresholds := map[string][]any{}
	seen := map[string]bool{}
	addVerdict := func(key, expr, source string, isTime, abort bool, delay string) {
		th, err := verdict.New(key, expr, source, isTime)
		if err != nil || seen[th.ID] {
			return // the parser produced expr, so err cannot happen; duplicates are judged once
		}
		seen[th.ID] = true
		th.AbortOnFail, th.DelayAbortEval = abort, delay
		verdicts = append(verdicts, th)
		if runners > 1 {
			return // the merge judges; a runner's share alone says nothing
		}
		gauge := verdict.GaugeMetric + "{" + verdict.GaugeTag + ":" + th.ID + "}"
		var v any = "value==0"
		if abort {
			long := map[string]any{"threshold": "value==0", "abortOnFail": true}
			if delay != "" {
				long["delayAbortEval"] = delay
			}
			v = long
		}
		thresholds[gauge] = []any{v}
	}
	var at time.Duration
	for _, c := range sc.Cells {
		tags := map[string]string{"cell": c.ID, "size": c.SizeLabel, "rate": c.RateLabel()}
		consumers := 1
		if runners > 1 {
			consumers = runners
		}
		if c.Producers > 0 { // a consume-only cell has only its consumer VU
			scenarios[publishScenario(c.ID)] = publishOptions(c, at, runners, tags)
		}
		scenarios[consumeScenario(c.ID)] = map[string]any{
			"executor": "per-vu-iterations", "exec": "consume", "vus": consumers, "iterations": 1,
			"maxDuration": dur(c.Warmup + c.Duration + c.Drain + 10*time.Second),
			"startTime":   dur(at), "gracefulStop": "5s", "tags": tags,
		}
		for _, t := range append(append([]scenario.Threshold{}, sc.Thresholds...), c.Thresholds...) {
			key := t.Metric
			if !hasTagFilter(key) {
				key += "{cell:" + c.ID + "}"
			}
			m, mine := catalog.Find(metricName(t.Metric))
			mine = mine && isMQ(m.Name)
			for _, e := range t.Expressions {
				if mine {
					// Judged by mqbench on its histograms, counters and ledger; k6 judges
					// the verdict gauge, so exit code, abortOnFail and delayAbortEval stay k6's.
					addVerdict(key, e.Expr, e.Source, m.Time, e.AbortOnFail, e.DelayAbortEval)
					continue
				}
				var v any = e.Expr
				if e.AbortOnFail {
					long := map[string]any{"threshold": e.Expr, "abortOnFail": true}
					if e.DelayAbortEval != "" {
						long["delayAbortEval"] = e.DelayAbortEval
					}
					v = long
				}
				thresholds[key] = appendUnique(thresholds[key], v)
				sources = append(sources, thresholdSource{Metric: key, Expr: e.Expr, Source: e.Source})
			}
		}
		// Without consumers nothing is lost, only unconsumed (the ledger says which).
		if durable(sc) && c.Consumers > 0 && !hasThreshold(sc, c, "mq_messages_lost") {
			addVerdict("mq_messages_lost{cell:"+c.ID+"}", "count==0", "count == 0 (default: durable delivery)", false, false, "")
		}
		// The validity threshold. When drops are allowed it becomes one that cannot fail:
		// k6 only keeps a per-cell count for metrics with a threshold, and the summary must
		// still say how many iterations were dropped.
		key := "dropped_iterations{scenario:" + publishScenario(c.ID) + "}"
		switch {
		case c.Max || c.Producers == 0: // no schedule to fall behind: nothing is dropped
		case !sc.Validity.AllowDroppedIterations && runners <= 1:
			thresholds[key] = appendUnique(thresholds[key], "count==0")
		default:
			why := "count >= 0 (allow_dropped_iterations: counted, not enforced)"
			if runners > 1 {
				why = "count >= 0 (counted on each runner; the merge judges the run)"
			}
			thresholds[key] = appendUnique(thresholds[key], "count>=0")
			sources = append(sources, thresholdSource{Metric: key, Expr: "count>=0", Source: why})
		}
		at += c.Warmup + c.Duration + c.Drain + cellGap
	}
	return map[string]any{
		"scenarios":         scenarios,
		"thresholds":        thresholds,
		"summaryTrendStats": summaryTrendStats,
		"tags":              map[string]string{"mq_scenario": sc.Name, "broker": sc.Broker.Type, "testid": sc.Name + "-" + runID},
		"setupTimeout":      "120s",
		"teardownTimeout":   "120s",
	}, sources, verdicts
}

// publishOptions is a cell's producer scenario. A fixed rate runs on constant-arrival-rate:
// rate messages per `batch` seconds = rate/batch iterations per second, each iteration sending
// batch messages. `rate: max` runs one long iteration per producer connection (per-vu-iterations),
// its closed loop in Go (Runner.PublishMax); the loop ends itself at the cell's limit, so k6's
// maxDuration only backs it up.
func publishOptions(c scenario.Cell, at time.Duration, runners int, tags map[string]string) map[string]any {
	if c.Max {
		return map[string]any{
			"executor": "per-vu-iterations", "exec": "publishMax", "vus": c.Producers, "iterations": 1,
			"maxDuration": dur(c.Warmup + c.Duration + 10*time.Second), "startTime": dur(at),
			"gracefulStop": dur(c.Drain), "tags": tags,
		}
	}
	pre, maxVUs := vuBudget(c)
	if runners > 1 {
		pre, maxVUs = roundUp(max(pre, runners), runners), roundUp(max(maxVUs, runners), runners)
	}
	return map[string]any{
		"executor": "constant-arrival-rate", "exec": "publish",
		"rate": c.Rate, "timeUnit": dur(time.Duration(c.Batch) * time.Second),
		"duration": dur(c.Warmup + c.Duration), "startTime": dur(at),
		"preAllocatedVUs": pre, "maxVUs": maxVUs,
		"gracefulStop": dur(c.Drain), "tags": tags,
	}
}

// metricName strips a tag filter: mq_e2e_latency{cell:c1} → mq_e2e_latency.
func metricName(key string) string {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		return key[:i]
	}
	return key
}

// isMQ: mqbench's own metrics are judged by mqbench; k6's (dropped_iterations, …) by k6.
func isMQ(name string) bool {
	for _, m := range catalog.Metrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// thresholdSource maps the k6 form of a threshold back to what the scenario said, so the
// summary shows "p(99) < 5ms" rather than k6's "p(99)<5".
type thresholdSource struct {
	Metric string `json:"metric"`
	Expr   string `json:"expression"`
	Source string `json:"source"`
}

// vuBudget sizes the producer VU pool from the iteration rate. k6 hands each tick to a VU
// that is parked and idle, or drops it: there is no queue. When the executor's timer loop
// stalls (GC, the scheduler, a busy core: stalls of 30 ms were measured on an idle 2-core
// machine), the overdue ticks fire in a burst and every tick without a parked VU is dropped.
// Iterations only send (acknowledgements are awaited elsewhere), so a VU is busy briefly: keep
// 50 ms of iterations parked, and room to grow fourfold. Scenario values win.
func vuBudget(c scenario.Cell) (pre, maxVUs int) {
	iterRate := float64(c.Rate) / float64(c.Batch)
	pre = int(math.Ceil(iterRate*0.050)) + 2
	pre = min(max(pre, 2), 1000)
	maxVUs = min(pre*4, 5000)
	if c.VUs > 0 {
		pre = c.VUs
	}
	if c.MaxVUs > 0 {
		maxVUs = c.MaxVUs
	}
	return pre, max(maxVUs, pre)
}

// durable reports whether the broker configuration promises delivery (Spec.PromisesDelivery).
func durable(sc *scenario.Scenario) bool {
	spec, err := driver.Lookup(sc.Broker.Type)
	return err == nil && driver.Has(spec.PromisesDelivery, sc.Broker.Options)
}

// hasThreshold reports whether the scenario or the cell sets any threshold on metric.
func hasThreshold(sc *scenario.Scenario, c scenario.Cell, metric string) bool {
	for _, t := range append(append([]scenario.Threshold{}, sc.Thresholds...), c.Thresholds...) {
		if metricName(t.Metric) == metric {
			return true
		}
	}
	return false
}

func dur(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

func hasTagFilter(metric string) bool {
	for _, r := range metric {
		if r == '{' {
			return true
		}
	}
	return false
}

func appendUnique(list []any, v any) []any {
	for _, x := range list {
		if s, ok := x.(string); ok && s == v {
			return list
		}
	}
	return append(list, v)
}
