package jsmodule

import (
	"time"

	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/metrics"
)

func scenarioState(vu modules.VU) *lib.ScenarioState { return lib.GetScenarioState(vu.Context()) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Publish is one producer iteration: the Go runner sends the batch; acknowledgements are
// awaited elsewhere. With aggregated samples (the default) nothing per iteration goes to
// k6: the cell's consumer VU sends each second's counts and latency statistics.
func (mi *ModuleInstance) Publish() error {
	cell, start, err := mi.cell()
	if err != nil {
		return err
	}
	state := mi.vu.State()
	res := mi.root.run.Publish(mi.vu.Context(), cell, start, state.GetScenarioGlobalVUIter())
	if res.Err != nil {
		state.Logger.WithError(res.Err).Debug("mqbench: publish error")
	}
	if res.Warmup || !mi.root.run.Raw() {
		return nil // warm-up is excluded from every measured metric
	}
	tm := state.Tags.GetCurrentValues()
	now := time.Now()
	s := make(metrics.Samples, 0, 5)
	add := func(m *metrics.Metric, v float64) {
		s = append(s, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tm.Tags}, Time: now, Value: v, Metadata: tm.Metadata})
	}
	add(mi.m.scheduleLag, ms(res.Lag))
	add(mi.m.sent, float64(res.Sent))
	add(mi.m.acked, float64(res.Acked)) // fire-and-forget; acknowledged modes report in pump
	add(mi.m.bytesSent, float64(res.Bytes))
	add(mi.m.publishErrors, float64(res.Errors))
	metrics.PushIfNotDone(mi.vu.Context(), state.Samples, s)
	return nil
}

// PublishMax is one producer's whole closed loop in a `rate: max` cell (one long iteration
// per producer connection); with aggregated samples its figures reach k6 through the
// consumer VU's seconds, like a fixed-rate cell's.
func (mi *ModuleInstance) PublishMax() error {
	cell, start, err := mi.cell()
	if err != nil {
		return err
	}
	res := mi.root.run.PublishMax(mi.vu.Context(), cell, start)
	if res.Err != nil {
		mi.vu.State().Logger.WithError(res.Err).Debug("mqbench: publish error")
	}
	return nil
}

// Consume is the cell's single consumer iteration: the runner runs the cell until its drain
// ends (or the run is stopped), and the sink (sink.go) sends k6 each second's aggregates and
// verdicts, then the ledger's counts and the verdicts (final ones after the last cell or a
// stop).
func (mi *ModuleInstance) Consume() error {
	cell, start, err := mi.cell()
	if err != nil {
		return err
	}
	mi.root.run.RunCell(mi.vu.Context(), cell, start, k6Sink{mi})
	return nil
}
