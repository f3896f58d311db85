package itest

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/output"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/output/promrw"
)

// A run's percentiles and those Prometheus computes from its native histogram name the same
// value at any count, not only where q·N is whole (1,600 messages): distributions with a sparse
// tail, where neighbouring ranks lie many buckets apart, counted as mqbench counts them
// (hist's native buckets, second by second), pushed by the output's own code to the real
// Prometheus. Each percentile must lie within one native bucket of summary.json's. (With
// HdrHistogram's rounded rank, a count such as 1,297 took the p99 one rank below
// Prometheus's: TestPrometheusMatchesSummary failed whenever a loaded run's cell counted a
// message more or less.)
func TestPrometheusQuantilesAtAnyCount(t *testing.T) {
	waitTurn(t, 10*time.Second)
	p := prom{t, promURL(t)}
	rng := rand.New(rand.NewSource(11))
	log := logrus.New()
	log.SetLevel(logrus.WarnLevel)
	testid := fmt.Sprintf("quantiles-%d", time.Now().UnixNano())
	counts := []int{1297, 1601, 3199, 1798, 2194, 999, 1885, 1579}
	for i := 0; i < 12; i++ {
		counts = append(counts, 200+rng.Intn(4000))
	}
	for trial, n := range counts {
		o, err := promrw.New(output.Params{Logger: log, ConfigArgument: p.url + "/api/v1/write?pushInterval=1h"})
		if err != nil {
			t.Fatal(err)
		}
		if err := o.Start(); err != nil {
			t.Fatal(err)
		}
		schema, _ := promrw.Schema()
		h := hist.New()
		h.EnableIntervals()
		h.EnableNative(schema)
		tags := map[string]string{"testid": testid, "cell": fmt.Sprintf("t%d", trial)}
		for recorded := 0; recorded < n; { // a second at a time, as a cell's consumer hands them over
			for k := min(n-recorded, 300+rng.Intn(300)); k > 0; k-- {
				v := math.Exp(rng.NormFloat64()*0.4) * 100e3
				if rng.Float64() < 0.04 {
					v = math.Exp(rng.Float64()*7) * 300e3 // up to 0.3 s, sparse
				}
				h.Record(int64(v))
				recorded++
			}
			in := h.TakeInterval(false)
			promrw.Observe("mq_e2e_latency", tags, in.Native, in.Mean*float64(in.Count)/1e9, time.Now())
		}
		if err := o.Stop(); err != nil {
			t.Fatal(err)
		}
		s := h.Snapshot()
		sel := fmt.Sprintf(`sum(k6_mq_e2e_latency_seconds{testid=%q,cell=%q})`, testid, tags["cell"])
		if got, _ := p.value("histogram_count(" + sel + ")"); got != float64(n) {
			t.Fatalf("trial %d: histogram_count %v, recorded %d", trial, got, n)
		}
		for _, pc := range hist.Percentiles[:5] { // p50 … p99.9
			got, _ := p.value(fmt.Sprintf("histogram_quantile(%g, %s)", pc.Q/100, sel))
			want := s.P[pc.Key] / 1e6
			if math.Abs(got-want) > nativeResolution(want) {
				t.Errorf("%d values: %s = %.2f us from Prometheus, %.2f us in summary.json: more than one bucket apart", n, pc.Label(), got*1e6, want*1e6)
			}
		}
	}
}
