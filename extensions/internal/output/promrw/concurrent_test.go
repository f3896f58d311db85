package promrw

import (
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// The k6 module's seconds (Observe), k6's samples and the periodic push run on three
// goroutines: under the race detector, with every push failing (nothing listens on port 1,
// so no push succeeds and none is faked), the totals stay exact.
func TestConcurrentFeed(t *testing.T) {
	log := logrus.New()
	log.SetLevel(logrus.PanicLevel)
	o, err := New(output.Params{Logger: log, ConfigArgument: "http://127.0.0.1:1/api/v1/write?pushInterval=10ms"})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	if s, ok := Schema(); !ok || s != 5 {
		t.Fatalf("Schema() = %d, %v while the output runs", s, ok)
	}
	reg := metrics.NewRegistry()
	sent := reg.MustNewMetric("mq_messages_sent", metrics.Counter)
	e2e := reg.MustNewMetric("mq_e2e_latency", metrics.Trend, metrics.Time)
	tags := reg.RootTagSet().With("cell", "c1").With("testid", "t-1")
	const rounds = 200
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range rounds {
			Observe("mq_e2e_latency", map[string]string{"cell": "c1", "testid": "t-1"},
				&hist.Native{Schema: 5, Buckets: []hist.NativeBucket{{Index: -400, Count: 3}}}, 3e-4, time.Now())
			time.Sleep(100 * time.Microsecond)
		}
	}()
	go func() {
		defer wg.Done()
		for range rounds {
			o.AddMetricSamples([]metrics.SampleContainer{metrics.Samples{
				{TimeSeries: metrics.TimeSeries{Metric: sent, Tags: tags}, Time: time.Now(), Value: 2},
				{TimeSeries: metrics.TimeSeries{Metric: e2e, Tags: tags.With("stat", "p99")}, Time: time.Now(), Value: 1},
			}})
			time.Sleep(100 * time.Microsecond)
		}
	}()
	wg.Wait()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, ok := Schema(); ok {
		t.Error("Schema() still says an output runs after Stop")
	}
	p := o.(*promOutput)
	var counter, hcount uint64
	for _, s := range p.series {
		switch metricOf(s.labels) {
		case "k6_mq_messages_sent_total":
			counter += uint64(s.value)
		case "k6_mq_e2e_latency_seconds":
			hcount += s.h.count
		default:
			t.Errorf("unexpected series %v (mqbench's per-second statistics must not be sent)", s.labels)
		}
	}
	if counter != 2*rounds || hcount != 3*rounds {
		t.Errorf("counter %d, histogram count %d; want %d and %d", counter, hcount, 2*rounds, 3*rounds)
	}
	r := LastReport()
	if r == nil || r.FailedPushes == 0 || r.Pushes != r.FailedPushes || r.URL != "http://127.0.0.1:1/api/v1/write" {
		t.Errorf("report %+v: want every push failed", r)
	}
}
