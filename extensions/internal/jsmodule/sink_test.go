package jsmodule

import (
	"context"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/runner"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/metrics"
)

// sinkUnderTest is a consumer VU's k6Sink on a VU whose samples land in a channel: what a
// running cell hands the sink, as k6 would receive it, without a k6 run.
func sinkUnderTest(t *testing.T) (k6Sink, chan metrics.SampleContainer) {
	t.Helper()
	dir := t.TempDir()
	text := "name: sink\nbroker: { type: nats, url: nats://127.0.0.1:4222 }\nworkload: { destination: d, duration: 1s }\n" +
		"matrix:\n  - { size: 64B, rate: 10 }\nthresholds:\n  mq_e2e_latency: [\"p(99) < 20ms\"]\n  mq_messages_lost: [\"count == 0\"]\n"
	path, sc, run := loadedScenario(t, dir, "sink", text)
	rm := &RootModule{path: path, run: run, resultsDir: dir, plan: plan.Build(sc, run.RunIDString(), 1)}
	reg := metrics.NewRegistry()
	mm, err := registerMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan metrics.SampleContainer, 16)
	state := &lib.State{Samples: ch, Tags: lib.NewVUStateTags(reg.RootTagSet().With("cell", "c1"))}
	return k6Sink{&ModuleInstance{root: rm, vu: sinkVU{state: state}, m: mm}}, ch
}

// sinkVU is the VU the sink needs: its state (tags, samples channel) and a context; the rest of
// modules.VU is never called by the sink (a nil embedded interface would panic if it were).
type sinkVU struct {
	modules.VU
	state *lib.State
}

func (v sinkVU) Context() context.Context { return context.Background() }
func (v sinkVU) State() *lib.State        { return v.state }

// sampled is one pushed batch, its samples by metric name (the samples of one metric told
// apart by their tags: stat, scenario, threshold).
type sampled map[string][]metrics.Sample

func take(t *testing.T, ch chan metrics.SampleContainer) sampled {
	t.Helper()
	select {
	case c := <-ch:
		out := sampled{}
		for _, s := range c.GetSamples() {
			if cell, _ := s.Tags.Get("cell"); cell != "c1" {
				t.Errorf("%s sample without the VU's cell tag: %v", s.Metric.Name, s.Tags.Map())
			}
			out[s.Metric.Name] = append(out[s.Metric.Name], s)
		}
		return out
	default:
		t.Fatal("the sink pushed nothing")
		return nil
	}
}

// one is the value of metric's only sample whose tag has want (tag "" for any).
func (s sampled) one(t *testing.T, metric, tag, want string) float64 {
	t.Helper()
	var found []float64
	for _, x := range s[metric] {
		if v, _ := x.Tags.Get(tag); tag == "" || v == want {
			found = append(found, x.Value)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s{%s=%s}: %d samples %v, want one", metric, tag, want, len(found), found)
	}
	return found[0]
}

// A second, in the aggregated mode: the counters' increments (the producers' under the
// cell's publish scenario), the backlog's highest, and one sample per statistic of each
// trend, times in ms and the count as is.
func TestSinkSecond(t *testing.T) {
	sink, ch := sinkUnderTest(t)
	q := make([]float64, len(hist.IntervalQuantiles))
	for i := range q {
		q[i] = float64(i+2) * 1e6
	}
	sink.Second(0, runner.Aggregate{Sent: 10, Acked: 9, Received: 8, Errors: 1, BytesSent: 640, BytesReceived: 512,
		BacklogMax: 5, HasBacklog: true, Trends: map[string]hist.Interval{"e2e": {Count: 8, Min: 1e6, Mean: 2.5e6, Max: 9e6, Q: q}}})
	s := take(t, ch)
	for _, c := range []struct {
		metric string
		want   float64
	}{
		{catalog.MessagesAcked, 9}, {catalog.MessagesReceived, 8}, {catalog.PublishErrors, 1},
		{catalog.BytesReceived, 512}, {catalog.Backlog, 5},
	} {
		if got := s.one(t, c.metric, "", ""); got != c.want {
			t.Errorf("%s: %v, want %v", c.metric, got, c.want)
		}
	}
	pub := catalog.PublishScenario("c1")
	if got := s.one(t, catalog.MessagesSent, "scenario", pub); got != 10 {
		t.Errorf("%s{scenario=%s}: %v, want 10", catalog.MessagesSent, pub, got)
	}
	if got := s.one(t, catalog.BytesSent, "scenario", pub); got != 640 {
		t.Errorf("%s{scenario=%s}: %v, want 640", catalog.BytesSent, pub, got)
	}
	stats := hist.IntervalStats()
	if n := len(s[catalog.E2ELatency]); n != len(stats) {
		t.Errorf("%d e2e samples, want one per statistic (%d)", n, len(stats))
	}
	for stat, want := range map[string]float64{"count": 8, "min": 1, "mean": 2.5, "max": 9, stats[4]: 2} {
		if got := s.one(t, catalog.E2ELatency, catalog.StatTag, stat); got != want {
			t.Errorf("e2e %s: %v, want %v", stat, got, want)
		}
	}
	if len(s[catalog.PublishLatency]) != 0 {
		t.Errorf("publish latency sent for a second without any: %v", s[catalog.PublishLatency])
	}
}

// Raw mode: one sample per message (each 1 ns after the previous, so InfluxDB keeps them
// all), the intended-time latency only for messages that carry one, counts and the backlog.
func TestSinkRaw(t *testing.T) {
	sink, ch := sinkUnderTest(t)
	recv := []runner.Received{{E2E: 2 * time.Millisecond, E2EIntended: -1, Bytes: 100}, {E2E: 3 * time.Millisecond, E2EIntended: 4 * time.Millisecond, Bytes: 50}}
	sink.Raw(0, recv, runner.Acks{PublishLat: []time.Duration{time.Millisecond, 1500 * time.Microsecond}, Acked: 2}, 7)
	s := take(t, ch)
	e2e := s[catalog.E2ELatency]
	if len(e2e) != 2 || e2e[0].Value != 2 || e2e[1].Value != 3 || !e2e[1].Time.After(e2e[0].Time) {
		t.Errorf("e2e samples %v: want 2 ms then 3 ms, 1 ns apart", e2e)
	}
	if in := s[catalog.E2EIntendedLatency]; len(in) != 1 || in[0].Value != 4 {
		t.Errorf("intended-time samples %v: want only the message that carries one (4 ms)", in)
	}
	for metric, want := range map[string]float64{catalog.MessagesReceived: 2, catalog.BytesReceived: 150, catalog.MessagesAcked: 2, catalog.Backlog: 7} {
		if got := s.one(t, metric, "", ""); got != want {
			t.Errorf("%s: %v, want %v", metric, got, want)
		}
	}
	if p := s[catalog.PublishLatency]; len(p) != 2 || p[1].Value != 1.5 {
		t.Errorf("publish samples %v: want 1 ms and 1.5 ms", p)
	}
	if len(s[catalog.PublishErrors]) != 0 {
		t.Errorf("publish errors sent with none: %v", s[catalog.PublishErrors])
	}
}

// A cell's end: the ledger's counts and one verdict gauge per threshold (1: failing; no
// data is failing).
func TestSinkCellEnd(t *testing.T) {
	sink, ch := sinkUnderTest(t)
	sink.CellEnd(0, runner.Tally{Lost: 3, Duplicated: 2}, true)
	s := take(t, ch)
	for metric, want := range map[string]float64{catalog.MessagesLost: 3, catalog.MessagesDuplicated: 2, catalog.MessagesUnconfirmed: 0} {
		if got := s.one(t, metric, "", ""); got != want {
			t.Errorf("%s: %v, want %v", metric, got, want)
		}
	}
	v := s[catalog.Verdict.Name]
	if len(v) != 2 {
		t.Fatalf("verdict samples %v: want one per threshold", v)
	}
	for _, x := range v {
		if x.Value != 1 {
			t.Errorf("threshold %v judged on no data reads %v, want 1 (failing)", x.Tags.Map(), x.Value)
		}
	}
}
