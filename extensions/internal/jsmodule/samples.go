package jsmodule

import (
	"maps"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/output/promrw"
	"github.com/mqbench/xk6-mqbench/internal/runner"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
	"go.k6.io/k6/v2/metrics"
)

// What the consumer VU sends k6 each second (aggregated mode, the default):
//   - counters (mq_messages_sent, …): one sample, the second's increment;
//   - trends (mq_e2e_latency, …): one sample per statistic, tagged stat=count|min|mean|max|
//     p50|p90|p95|p99|p99.9|p99.99 (time values in ms), the schema of the mqbench-influxdb
//     output, so dashboards read both outputs alike;
//   - mq_backlog: the second's highest sample;
//   - mq_threshold_failed{threshold:…}: 1 while a threshold fails, 0 while it holds.
// A few dozen samples a second whatever the message rate, so k6's memory stays flat.

// intervalStats are the stat tag values, in intervalValues' order.
var intervalStats = hist.IntervalStats()

type sampleValue struct {
	m *metrics.Metric
	v float64
}

// samples builds samples with the VU's current tags (cell, size, rate, …), plus extra tags.
func (mi *ModuleInstance) samples(vals []sampleValue, extra map[string]string) metrics.Samples {
	tm := mi.vu.State().Tags.GetCurrentValues()
	tags := tm.Tags
	for k, v := range extra {
		tags = tags.With(k, v)
	}
	now := time.Now()
	s := make(metrics.Samples, 0, len(vals))
	for _, x := range vals {
		s = append(s, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: x.m, Tags: tags}, Time: now, Value: x.v, Metadata: tm.Metadata})
	}
	return s
}

// pushSecond sends one second of a cell (aggregated mode; raw mode sent every message).
func (mi *ModuleInstance) pushSecond(cell int, a runner.Aggregate) {
	mi.pushBroker(a.Broker) // in either mode (brokerstats.go)
	mi.observePrometheus(cell, a)
	if mi.root.run.Raw() {
		return
	}
	// What the producers did carries the cell's publish scenario tag, as raw samples do (they
	// come from its iterations); what the consumers did, the consume scenario's.
	pub := map[string]string{"scenario": catalog.PublishScenario(mi.root.run.Scenario().Cells[cell].ID)}
	// Zero seconds are sent too: a series that exists says "nothing failed", and the
	// dashboards' error panels read it.
	pubVals := []sampleValue{{mi.m.sent, float64(a.Sent)}, {mi.m.bytesSent, float64(a.BytesSent)}}
	vals := []sampleValue{{mi.m.acked, float64(a.Acked)}, {mi.m.received, float64(a.Received)},
		{mi.m.publishErrors, float64(a.Errors)}, {mi.m.bytesReceived, float64(a.BytesReceived)}}
	if a.HasBacklog {
		vals = append(vals, sampleValue{mi.m.backlog, float64(a.BacklogMax)})
	}
	s := append(mi.samples(vals, nil), mi.samples(pubVals, pub)...)
	for kind, in := range a.Trends {
		m := mi.m.trend[runner.TrendMetric[kind]]
		for i, v := range intervalValues(in) {
			tags := map[string]string{catalog.StatTag: intervalStats[i]}
			if kind == "schedule_lag" {
				tags["scenario"] = pub["scenario"]
			}
			s = append(s, mi.samples([]sampleValue{{m, v}}, tags)...)
		}
	}
	metrics.PushIfNotDone(mi.vu.Context(), mi.vu.State().Samples, s)
}

// observePrometheus hands the second's distributions to a running mqbench-prometheus output
// (in either mode): its native buckets, which k6's per-second statistics cannot carry.
func (mi *ModuleInstance) observePrometheus(cell int, a runner.Aggregate) {
	if _, on := promrw.Schema(); !on {
		return
	}
	tags := mi.vu.State().Tags.GetCurrentValues().Tags.Map()
	now := time.Now()
	for kind, in := range a.Trends {
		t := tags
		if kind == "schedule_lag" { // the producers' scenario, as its k6 samples carry
			t = maps.Clone(tags)
			t["scenario"] = catalog.PublishScenario(mi.root.run.Scenario().Cells[cell].ID)
		}
		promrw.Observe(runner.TrendMetric[kind], t, in.Native, in.Mean*float64(in.Count)/1e9, now)
	}
}

// intervalValues are an interval's statistics in intervalStats order (time in ms, count as is).
func intervalValues(in hist.Interval) []float64 {
	out := []float64{float64(in.Count), in.Min / 1e6, in.Mean / 1e6, in.Max / 1e6}
	for _, q := range in.Q {
		out = append(out, q/1e6)
	}
	return out
}

// verdictSamples turns verdicts into mq_threshold_failed samples.
func (mi *ModuleInstance) verdictSamples(vs []judged) metrics.Samples {
	var s metrics.Samples
	for _, j := range vs {
		v := 0.0
		if !j.res.OK {
			v = 1
		}
		s = append(s, mi.samples([]sampleValue{{mi.m.thresholdFailed, v}}, mi.root.verdictTags(j.th))...)
	}
	return s
}

func (mi *ModuleInstance) pushVerdicts(vs []judged) {
	if len(vs) > 0 {
		metrics.PushIfNotDone(mi.vu.Context(), mi.vu.State().Samples, mi.verdictSamples(vs))
	}
}

// judged is one threshold with its latest result.
type judged struct {
	th  *verdict.Threshold
	res verdict.Result
}

// judge evaluates every mqbench threshold. While the run goes, only thresholds with data
// are reported (k6 also skips empty metrics until the end); final evaluates all of them,
// failing those still without data (no data is not a pass: their gauge reads 1, so k6 exits
// 99), and once the ledgers are sealed (conclude) keeps the results for the summary.
func (rm *RootModule) judge(final bool) []judged {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.final != nil {
		return rm.final
	}
	out := make([]judged, 0, len(rm.plan.Verdicts))
	elapsed := rm.run.Elapsed()
	for i := range rm.plan.Verdicts {
		t := &rm.plan.Verdicts[i]
		r := t.Eval(rm.run, elapsed)
		if r.Measured || final {
			out = append(out, judged{t, r})
		}
	}
	if final && rm.run.Sealed() {
		rm.final = out
	}
	return out
}

// verdictTags tag a verdict sample with its threshold and the cell it judges (whichever
// cell's consumer VU sends it): "all" for a threshold over several cells.
func (rm *RootModule) verdictTags(th *verdict.Threshold) map[string]string {
	tags := catalog.CellOwnTags("all", "all", "all")
	for _, c := range rm.run.Scenario().Cells {
		if c.ID == th.Cell {
			tags = catalog.CellOwnTags(c.ID, c.SizeLabel, c.RateLabel())
			tags["scenario"] = catalog.ConsumeScenario(c.ID)
		}
	}
	tags[verdict.GaugeTag] = th.ID
	return tags
}
