package mqbench

import (
	"time"

	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/metrics"
)

// pumpEvery is how often the consumer VU turns received latencies into k6 samples.
const pumpEvery = 50 * time.Millisecond

func scenarioState(vu modules.VU) *lib.ScenarioState { return lib.GetScenarioState(vu.Context()) }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Publish is one producer iteration: the Go runner sends the batch and waits for the
// acknowledgements; this pushes its samples with the VU's tags (cell, size, rate, …).
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
	if res.Warmup {
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

// Consume is the cell's single consumer iteration: it lasts until the cell's drain ends (or
// the run is stopped), turning received latencies into samples every pumpEvery, then freezes
// the cell's ledger and pushes lost / duplicated / reordered counts.
func (mi *ModuleInstance) Consume() error {
	cell, start, err := mi.cell()
	if err != nil {
		return err
	}
	ctx := mi.vu.Context()
	end := mi.root.run.CellEnd(cell, start)
	tick := time.NewTicker(pumpEvery)
	defer tick.Stop()
	interrupted := false
	for stop := false; !stop; {
		select {
		case <-ctx.Done():
			stop, interrupted = true, true
		case now := <-tick.C:
			stop = !now.Before(end)
		}
		mi.pump(cell)
	}
	t := mi.root.run.Finalize(cell, interrupted)
	state := mi.vu.State()
	tm := state.Tags.GetCurrentValues()
	now := time.Now()
	s := metrics.Samples{}
	for _, kv := range []struct {
		m *metrics.Metric
		v uint64
	}{{mi.m.lost, t.Lost}, {mi.m.duplicated, t.Duplicated}, {mi.m.reordered, t.Reordered}} {
		s = append(s, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: kv.m, Tags: tm.Tags}, Time: now, Value: float64(kv.v), Metadata: tm.Metadata})
	}
	// Pushed even when the run is being stopped (the ledger is what was measured), but never
	// blocking past the engine's shutdown.
	select {
	case state.Samples <- s:
	case <-time.After(time.Second):
	}
	return nil
}

// pump turns what consumers received since the last call into samples, with the backlog.
func (mi *ModuleInstance) pump(cell int) {
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
	add(mi.m.backlog, now, float64(run.Backlog(cell)))
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
