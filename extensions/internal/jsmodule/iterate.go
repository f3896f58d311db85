package jsmodule

import (
	"time"

	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/metrics"
)

// pumpEvery is how often the consumer VU samples the backlog (and, with raw samples, turns
// received latencies into k6 samples); aggregates and verdicts go to k6 once a second.
const pumpEvery = 50 * time.Millisecond

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

// Consume is the cell's single consumer iteration: it lasts until the cell's drain ends (or
// the run is stopped). Every second it sends k6 the cell's aggregates and every threshold's
// current verdict; at the end it freezes the cell's ledger and sends the last second, the
// ledger's counts and the verdicts (final ones after the last cell or a stop).
func (mi *ModuleInstance) Consume() error {
	cell, start, err := mi.cell()
	if err != nil {
		return err
	}
	run := mi.root.run
	ctx := mi.vu.Context()
	run.StartCell(cell)
	run.StartFaults(ctx, cell, start)
	end := run.CellEnd(cell, start)
	next := time.Now().Add(time.Second)
	tick := time.NewTicker(pumpEvery)
	defer tick.Stop()
	interrupted := false
	for stop := false; !stop; {
		select {
		case <-ctx.Done():
			stop, interrupted = true, true
		case now := <-tick.C:
			stop = !now.Before(end) || run.CellDone(cell, now)
		}
		backlog := run.Backlog(cell)
		run.StepDrain(cell, start, backlog)
		if run.Raw() {
			mi.pump(cell, backlog)
		}
		if now := time.Now(); !stop && !now.Before(next) {
			mi.pushSecond(cell, run.Second(cell))
			mi.pushVerdicts(mi.root.judge(false))
			next = next.Add(time.Second)
		}
	}
	t := run.Finalize(cell, interrupted)
	mi.pushSecond(cell, run.Second(cell))
	run.EndCell(cell)
	final := interrupted || cell == len(run.Scenario().Cells)-1
	counts := []sampleValue{{mi.m.lost, float64(t.Lost)}, {mi.m.unconfirmed, float64(t.Unconfirmed)}, {mi.m.held, float64(t.Held)}, {mi.m.duplicated, float64(t.Duplicated)}, {mi.m.reordered, float64(t.Reordered)}}
	s := mi.samples(counts, nil)
	s = append(s, mi.verdictSamples(mi.root.judge(final))...)
	// Pushed even when the run is being stopped (the ledger is what was measured), but never
	// blocking past the engine's shutdown.
	select {
	case mi.vu.State().Samples <- s:
	case <-time.After(time.Second):
	}
	return nil
}

// pump turns what consumers received since the last call into per-message samples (raw
// mode only), with the backlog.
func (mi *ModuleInstance) pump(cell int, backlog int64) {
	run := mi.root.run
	mi.recv = run.TakeReceived(cell, mi.recv)
	acks := run.TakeAcks(cell, mi.lat)
	mi.lat = acks.PublishLat
	state := mi.vu.State()
	tm := state.Tags.GetCurrentValues()
	now := time.Now()
	s := make(metrics.Samples, 0, 2*len(mi.recv)+len(acks.PublishLat)+5)
	add := func(m *metrics.Metric, t time.Time, v float64) {
		s = append(s, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tm.Tags}, Time: t, Value: v, Metadata: tm.Metadata})
	}
	add(mi.m.backlog, now, float64(backlog))
	// InfluxDB identifies a point by measurement, tags and time: samples of one batch sharing
	// `now` would overwrite each other there, so each message's sample is 1 ns later.
	bytes := 0
	for i, r := range mi.recv {
		t := now.Add(time.Duration(i))
		add(mi.m.e2eLatency, t, ms(r.E2E))
		if r.E2EIntended >= 0 {
			add(mi.m.e2eIntended, t, ms(r.E2EIntended))
		}
		bytes += r.Bytes
	}
	if len(mi.recv) > 0 {
		add(mi.m.received, now, float64(len(mi.recv)))
		add(mi.m.bytesReceived, now, float64(bytes))
	}
	for i, d := range acks.PublishLat {
		add(mi.m.publishLatency, now.Add(time.Duration(i)), ms(d))
	}
	if acks.Acked > 0 {
		add(mi.m.acked, now, float64(acks.Acked))
	}
	if acks.Errors > 0 {
		add(mi.m.publishErrors, now, float64(acks.Errors))
	}
	metrics.PushIfNotDone(mi.vu.Context(), state.Samples, s)
}
