// Package plan is the typed plan of a k6 run: which k6 scenarios run each cell and when,
// their VU budgets, and which thresholds k6 and mqbench judge. It is the one place where k6
// scenario names, threshold keys and option names are made and read back: the JS module
// exports its options, merge and k8s read them from here.
package plan

import (
	"math"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// CellGap separates cells. k6 hands a starting scenario its pre-allocated VUs from one shared
// pool and blocks until they are back; if the previous cell's VUs return a few ms late, the
// new cell's clock is already running and its first ticks fire in a burst that is dropped.
const CellGap = time.Second

// Plan is a run's k6 options with what judges each threshold.
type Plan struct {
	Options  Options
	Sources  []Source            // k6-judged thresholds, with the scenario's wording
	Verdicts []verdict.Threshold // mqbench-judged thresholds
	sc       *scenario.Scenario
	cells    map[string]int // k6 scenario name → cell index
	// schedules are the cells' send schedules, by cell index (schedule.go)
	schedules []Schedule
}

// Source maps the k6 form of a threshold back to what the scenario said, so the summary
// shows "p(99) < 5ms" rather than k6's "p(99)<5".
type Source struct {
	Metric string
	Expr   threshold.Expr
	Source string
}

// Scenario is the scenario the plan was built from.
func (p *Plan) Scenario() *scenario.Scenario { return p.sc }

// DroppedKey is the k6 threshold key counting a cell's dropped iterations.
func DroppedKey(cellID string) string {
	return catalog.DroppedIterations + "{scenario:" + catalog.PublishScenario(cellID) + "}"
}

// VerdictKey is the k6 threshold key of the gauge carrying an mqbench verdict.
func VerdictKey(th *verdict.Threshold) string {
	return verdict.GaugeMetric + "{" + verdict.GaugeTag + ":" + th.ID + "}"
}

// VerdictExpr is what k6 judges on a verdict's gauge.
var VerdictExpr = threshold.Expr{Agg: "value", Op: "==", Limit: 0}

// The count thresholds the plan adds itself: nothing (lost, dropped), and any number (a
// count kept for the summary, never failing).
var (
	countZero = threshold.Expr{Agg: "count", Op: "==", Limit: 0}
	countAny  = threshold.Expr{Agg: "count", Op: ">=", Limit: 0}
)

// SummaryTrendStats: the full tail, so k6's own summary and handleSummary data carry it too
// (the median stands for p50).
func SummaryTrendStats() []string {
	out := []string{"avg", "min", "med", "max"}
	for _, p := range hist.Percentiles {
		if p.Q != 50 {
			out = append(out, p.K6())
		}
	}
	return out
}

// Build turns a scenario into its plan: per cell, an arrival-rate producer scenario
// and a one-iteration consumer scenario that lasts until the cell's drain ends; cells run one
// after another. Thresholds apply per cell (a p99 across a 256 B cell and a 1 MB cell means
// nothing).
//
// runners > 1 builds a distributed runner's plan: VU budgets in multiples of runners (k6
// splits an arrival rate by maxVUs), one consumer VU per runner, and no verdict of its own
// (thresholds stay in Verdicts for the merge; dropped iterations are counted, not judged).
func Build(sc *scenario.Scenario, runID string, runners int) *Plan {
	p := &Plan{
		Options: Options{
			Scenarios:         map[string]Executor{},
			Thresholds:        map[string][]Threshold{},
			SummaryTrendStats: SummaryTrendStats(),
			Tags:              catalog.RunTags(sc.Broker.Type, sc.Name, catalog.TestID(sc.Name, runID)),
			SetupTimeout:      "120s",
			TeardownTimeout:   "120s",
			NoCookiesReset:    true,
		},
		sc:    sc,
		cells: map[string]int{},
	}
	num, den := RateScale(sc, runners)
	seen := map[string]bool{}
	addVerdict := func(key string, e scenario.Expression, isTime bool) {
		th := verdict.Of(key, e.Expr, e.Source, isTime)
		if seen[th.ID] {
			return // duplicates are judged once
		}
		seen[th.ID] = true
		th.AbortOnFail, th.DelayAbortEval = e.AbortOnFail, e.DelayAbortEval
		p.Verdicts = append(p.Verdicts, th)
		if runners > 1 {
			return // the merge judges; a runner's share alone says nothing
		}
		p.Options.addThreshold(VerdictKey(&th), Threshold{Expr: VerdictExpr, AbortOnFail: e.AbortOnFail, DelayAbortEval: e.DelayAbortEval})
	}
	var at time.Duration
	for i, c := range sc.Cells {
		p.cells[catalog.PublishScenario(c.ID)], p.cells[catalog.ConsumeScenario(c.ID)] = i, i
		// The run's tags too: `k6 run --tag` replaces options.tags, never a scenario's, so a
		// user's own tag does not strip the samples of their run id.
		tags := catalog.CellTags(c.ID, c.SizeLabel, c.RateLabel(), sc.Broker.Type, sc.Name, catalog.TestID(sc.Name, runID))
		sched := NewSchedule(c, num, den)
		p.schedules = append(p.schedules, sched)
		if c.Producers > 0 { // a consume-only cell has only its consumer VU
			e := publishExecutor(c, sched, at, runners, tags)
			if num != den && !c.Max {
				// The producing runners send num/den times their 1/N share: their VU pools too.
				e.PreAllocatedVUs = roundUp((e.PreAllocatedVUs*num+den-1)/den, runners)
				e.MaxVUs = roundUp((e.MaxVUs*num+den-1)/den, runners)
			}
			p.Options.Scenarios[catalog.PublishScenario(c.ID)] = e
		}
		p.Options.Scenarios[catalog.ConsumeScenario(c.ID)] = Executor{
			Executor: PerVUIterations, Exec: ExecConsume, VUs: max(runners, 1), Iterations: 1,
			MaxDuration: dur(c.Warmup + c.Duration + c.Drain + 10*time.Second),
			StartTime:   dur(at), GracefulStop: "5s", Tags: tags,
		}
		for _, t := range append(append([]scenario.Threshold{}, sc.Thresholds...), c.Thresholds...) {
			key := t.Metric
			if !strings.Contains(key, "{") {
				key += "{cell:" + c.ID + "}"
			}
			m, mine := catalog.Find(MetricName(t.Metric))
			mine = mine && isMQ(m.Name)
			for _, e := range t.Expressions {
				if mine {
					// Judged by mqbench on its histograms, counters and ledger; k6 judges
					// the verdict gauge, so exit code, abortOnFail and delayAbortEval stay k6's.
					addVerdict(key, e, m.Time)
					continue
				}
				p.Options.addThreshold(key, Threshold{Expr: e.Expr, AbortOnFail: e.AbortOnFail, DelayAbortEval: e.DelayAbortEval})
				p.Sources = append(p.Sources, Source{Metric: key, Expr: e.Expr, Source: e.Source})
			}
		}
		// Without consumers nothing is lost, only unconsumed (the ledger says which).
		if durable(sc) && c.Consumers > 0 && !hasThreshold(sc, c, catalog.MessagesLost) {
			addVerdict(catalog.MessagesLost+"{cell:"+c.ID+"}", scenario.Expression{Expr: countZero, Source: "count == 0 (default: durable delivery)"}, false)
		}
		// The validity threshold. When drops are allowed it becomes one that cannot fail:
		// k6 only keeps a per-cell count for metrics with a threshold, and the summary must
		// still say how many iterations were dropped.
		key := DroppedKey(c.ID)
		switch {
		case c.Max || c.Producers == 0: // no schedule to fall behind: nothing is dropped
		case !sc.Validity.AllowDroppedIterations && runners <= 1:
			p.Options.addThreshold(key, Threshold{Expr: countZero})
		default:
			why := "count >= 0 (allow_dropped_iterations: counted, not enforced)"
			if runners > 1 {
				why = "count >= 0 (counted on each runner; the merge judges the run)"
			}
			p.Options.addThreshold(key, Threshold{Expr: countAny})
			p.Sources = append(p.Sources, Source{Metric: key, Expr: countAny, Source: why})
		}
		at += cellLength(c)
	}
	return p
}

// RateScale is the factor num/den on every cell's iteration rate of a distributed runner:
// k6 gives each of the N runners 1/N of the ticks, and consume-only runners skip theirs,
// so with C of them the rate is scaled by N/(N-C) for the N-C producing runners to send
// the cell's rate together (exactly: rate·N per batch·(N-C) seconds, no rounding).
func RateScale(sc *scenario.Scenario, runners int) (num, den int) {
	c := sc.Distributed.Consumers
	if !sc.Distributed.Shared || runners < 2 || c < 1 || c >= runners {
		return 1, 1
	}
	return runners, runners - c
}

// publishExecutor is a cell's producer scenario. A fixed rate runs on arrival.Type at
// the cell's schedule: rate messages per `batch` seconds = rate/batch iterations per second,
// each iteration sending batch messages. `rate: max` runs one long iteration per producer connection
// (per-vu-iterations), its closed loop in Go (Runner.PublishMax); the loop ends itself at the
// cell's limit, so k6's maxDuration only backs it up.
func publishExecutor(c scenario.Cell, sched Schedule, at time.Duration, runners int, tags map[string]string) Executor {
	if c.Max || c.Replay != nil { // a replay is one loop through its recording (Runner.PublishMax)
		vus := c.Producers
		if c.Replay != nil {
			vus = 1
		}
		return Executor{
			Executor: PerVUIterations, Exec: ExecPublishMax, VUs: vus, Iterations: 1,
			MaxDuration: dur(c.Warmup + c.Duration + 10*time.Second), StartTime: dur(at),
			GracefulStop: dur(c.Drain), Tags: tags,
		}
	}
	pre, maxVUs := VUBudget(c)
	if runners > 1 {
		pre, maxVUs = roundUp(max(pre, runners), runners), roundUp(max(maxVUs, runners), runners)
	}
	e := Executor{
		Executor: ConstantArrivalRate, Exec: ExecPublish,
		Rate: sched.Rate, TimeUnit: dur(sched.TimeUnit),
		Duration: dur(c.Warmup + c.Duration), StartTime: dur(at),
		PreAllocatedVUs: pre, MaxVUs: maxVUs,
		GracefulStop: dur(c.Drain), Tags: tags,
	}
	if len(sched.Stages) > 0 { // a profile: k6's ramping executor on the same schedule
		e.Executor, e.Rate, e.Duration, e.StartRate = RampingArrivalRate, 0, "", sched.StartRate
		for _, st := range sched.Stages {
			e.Stages = append(e.Stages, Stage{Target: st.Target, Duration: dur(st.Duration)})
		}
		// k6 starts a profile's clock once its VUs are active (14 ms for 1,000 here) but ends
		// the executor on the scenario's: a tail, inside the drain, lets the last ticks fire;
		// the runner sends nothing on the tail's own ticks.
		if tail := min(c.Drain, ProfileTail); tail > 0 {
			e.Stages = append(e.Stages, Stage{Target: sched.Stages[len(sched.Stages)-1].Target, Duration: dur(tail)})
		}
	}
	return e
}

// ProfileTail is the most a profile's executor runs past its last stage (publishExecutor).
const ProfileTail = time.Second

// VUParked is how long a stall of the load generator the default VU pool absorbs.
//
// k6 hands each tick to a VU that is parked and idle, or drops it: there is no queue. When the
// executor's timer loop stalls (GC, the scheduler, a busy core), the overdue ticks fire in a
// burst and every tick without a parked VU is dropped. On a busy 2-core machine (load 7-19)
// running the quickstart (500 and 1,000 msg/s) ten times beside a cold `go build ./...`,
// stalls reached 0.3-1.4 s: with 50 ms parked 8 of 10 runs dropped iterations (6 to 517), with
// 0.5 s 1 of 10 (410 in a 494 ms stall), with 1 s 1 of 30 (45 in a 1.4 s stall, whose e2e
// latency failed too); alternating the two, 6 of 10 (12 to 750) against 0 of 10. A parked VU
// costs about 0.16 MB, hence the caps in VUBudget.
const VUParked = time.Second

// VUBudget sizes the producer VU pool from the iteration rate: VUParked of iterations parked
// (at least 2, at most 1,000: about 160 MB), and room to grow fourfold (at most 5,000).
// Iterations only send (acknowledgements are awaited elsewhere), so a VU is busy briefly.
// Scenario values win.
func VUBudget(c scenario.Cell) (pre, maxVUs int) {
	iterRate := float64(c.Rate) / float64(c.Batch)
	pre = int(math.Ceil(iterRate*VUParked.Seconds())) + 2
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

// Length is how long the cells take, one after another, as Build lays them out.
func Length(sc *scenario.Scenario) time.Duration {
	var d time.Duration
	for _, c := range sc.Cells {
		d += cellLength(c)
	}
	return d
}

func cellLength(c scenario.Cell) time.Duration { return c.Warmup + c.Duration + c.Drain + CellGap }

// roundUp returns v rounded up to a multiple of n.
func roundUp(v, n int) int { return (v + n - 1) / n * n }

// MetricName strips a tag filter: mq_e2e_latency{cell:c1} → mq_e2e_latency.
func MetricName(key string) string {
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

// durable reports whether the broker configuration promises delivery (Spec.PromisesDelivery).
func durable(sc *scenario.Scenario) bool {
	spec, err := driver.Lookup(sc.Broker.Type)
	return err == nil && driver.Has(spec.PromisesDelivery, sc.Broker.Options)
}

// hasThreshold reports whether the scenario or the cell sets any threshold on metric.
func hasThreshold(sc *scenario.Scenario, c scenario.Cell, metric string) bool {
	for _, t := range append(append([]scenario.Threshold{}, sc.Thresholds...), c.Thresholds...) {
		if MetricName(t.Metric) == metric {
			return true
		}
	}
	return false
}
