package jsmodule

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runner"
	"go.k6.io/k6/v2/metrics"
)

// k6Sink turns what a running cell measured (runner.RunCell) into the consumer VU's k6
// samples: per message in raw mode, per second otherwise, and the verdict gauges.
type k6Sink struct{ mi *ModuleInstance }

var _ runner.Sink = k6Sink{}

// Second sends one second of the cell (aggregated mode; raw mode sent every message).
func (k k6Sink) Second(cell int, a runner.Aggregate) { k.mi.pushSecond(cell, a) }

// Verdicts sends every threshold's current verdict.
func (k k6Sink) Verdicts() { k.mi.pushVerdicts(k.mi.root.judge(false)) }

// CellEnd sends the cell's ledger counts and the verdicts (final ones when final).
func (k k6Sink) CellEnd(_ int, t runner.Tally, final bool) {
	mi := k.mi
	counts := []sampleValue{{mi.m.lost, float64(t.Lost)}, {mi.m.unconfirmed, float64(t.Unconfirmed)}, {mi.m.held, float64(t.Held)}, {mi.m.duplicated, float64(t.Duplicated)}, {mi.m.reordered, float64(t.Reordered)}}
	s := mi.samples(counts, nil)
	mi.pushBounded(append(s, mi.verdictSamples(mi.root.judge(final))...))
}

// pushBounded sends samples even when the run is being stopped (the ledger and verdicts are
// what was measured), but never blocks past the engine's shutdown.
func (mi *ModuleInstance) pushBounded(s metrics.Samples) {
	select {
	case mi.vu.State().Samples <- s:
	case <-time.After(time.Second):
	}
}

// Raw turns what consumers received and producers had acknowledged since the last call into
// per-message samples (raw mode only), with the backlog.
func (k k6Sink) Raw(_ int, recv []runner.Received, acks runner.Acks, backlog int64) {
	mi := k.mi
	state := mi.vu.State()
	tm := state.Tags.GetCurrentValues()
	now := time.Now()
	s := make(metrics.Samples, 0, 2*len(recv)+len(acks.PublishLat)+5)
	add := func(m *metrics.Metric, t time.Time, v float64) {
		s = append(s, metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tm.Tags}, Time: t, Value: v, Metadata: tm.Metadata})
	}
	add(mi.m.backlog, now, float64(backlog))
	// InfluxDB identifies a point by measurement, tags and time: samples of one batch sharing
	// `now` would overwrite each other there, so each message's sample is 1 ns later.
	bytes := 0
	for i, r := range recv {
		t := now.Add(time.Duration(i))
		add(mi.m.e2eLatency, t, ms(r.E2E))
		if r.E2EIntended >= 0 {
			add(mi.m.e2eIntended, t, ms(r.E2EIntended))
		}
		bytes += r.Bytes
	}
	if len(recv) > 0 {
		add(mi.m.received, now, float64(len(recv)))
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
