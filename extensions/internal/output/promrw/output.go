// Package promrw is the mqbench-prometheus output: Prometheus remote write with mqbench's
// latency distributions as native histograms (or classic buckets), exact per second and
// summable over seconds, cells and runners, and every counter as a counter.
package promrw

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// Name is the name given to --out.
const Name = "mqbench-prometheus"

// New is the k6 output constructor behind --out mqbench-prometheus.
func New(p output.Params) (output.Output, error) {
	cfg, err := parseConfig(p.Environment, p.ConfigArgument)
	if err != nil {
		return nil, err
	}
	return &promOutput{cfg: cfg, logger: p.Logger.WithField("output", Name), client: newHTTPClient(cfg),
		series: map[string]*series{}, cache: map[metrics.TimeSeries]*series{}, runner: runnerLabel(p.ScriptOptions)}, nil
}

// runnerLabel is this process's place among a distributed run's runners ("2" of k6's
// execution segments), "" for a whole run: runners push the same series otherwise, and
// Prometheus would take one runner's totals for another's.
func runnerLabel(o lib.Options) string {
	if o.ExecutionSegment == nil {
		return ""
	}
	et, err := lib.NewExecutionTuple(o.ExecutionSegment, o.ExecutionSegmentSequence)
	if err != nil || et.Sequence.IsFull() && len(et.Sequence.ExecutionSegmentSequence) < 2 {
		return ""
	}
	return strconv.Itoa(et.SegmentIndex + 1)
}

// RunnerLabel is the label naming a distributed run's runner.
const RunnerLabel = "mq_runner"

var _ output.Output = (*promOutput)(nil)

type seriesKind int

const (
	kindCounter seriesKind = iota
	kindGauge
	kindRate
	kindHist
)

// series is one Prometheus series: its labels and its value since the run started.
type series struct {
	labels    []*prompb.Label
	kind      seriesKind
	value     float64  // counter total, gauge's last value
	num, den  float64  // rate: non-zero samples and all samples
	h         *cumHist // kindHist
	born      int64    // ms of the first observation
	sent      bool     // the series' zero sample went first
	dirty     bool     // changed since the last push
	idle      int      // pushes since it last changed (gauges: marked stale after idleLimit)
	lastStamp int64
}

type promOutput struct {
	cfg    config
	logger logrus.FieldLogger
	client *http.Client

	mu     sync.Mutex
	series map[string]*series
	cache  map[metrics.TimeSeries]*series // k6's series → ours: one map lookup per sample

	flusher *output.PeriodicFlusher
	health  health
	runner  string // runnerLabel
}

// Description is shown by k6 run under "output:".
func (o *promOutput) Description() string {
	h := fmt.Sprintf("native histograms, schema %d", o.cfg.schema)
	if o.cfg.classic {
		h = "classic buckets"
	}
	return fmt.Sprintf("%s (%s, %s, every %s)", Name, o.cfg.url, h, o.cfg.pushInterval)
}

// Start makes the output the one the k6 module feeds and starts the periodic push.
func (o *promOutput) Start() error {
	pf, err := output.NewPeriodicFlusher(o.cfg.pushInterval, func() { o.flush() })
	if err != nil {
		return err
	}
	o.flusher = pf
	lastMu.Lock()
	lastReport = nil // a previous run's, in this process
	lastMu.Unlock()
	running.Store(o)
	return nil
}

// Stop pushes what is left and records how the output fared for summary.json.
func (o *promOutput) Stop() error {
	o.flusher.Stop()
	running.CompareAndSwap(o, nil)
	o.flush()
	o.health.finish(o.cfg.url)
	return nil
}

// seriesFor returns (creating) the series of name and tags. The caller holds mu.
func (o *promOutput) seriesFor(name string, tags map[string]string, kind seriesKind, at time.Time) *series {
	labels := labelSet(name, tags)
	if o.runner != "" {
		labels = withLabel(labels, RunnerLabel, o.runner)
	}
	k := key(labels)
	s := o.series[k]
	if s == nil {
		s = &series{labels: labels, kind: kind, born: at.UnixMilli()}
		if kind == kindHist {
			s.h = newCumHist(o.cfg.schema)
		}
		o.series[k] = s
	}
	return s
}

// AddMetricSamples folds samples into their series: a map lookup and an addition, no I/O.
func (o *promOutput) AddMetricSamples(containers []metrics.SampleContainer) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, smp := range c.GetSamples() {
			m := smp.Metric
			if _, mq := catalog.TrendKind(m.Name); mq {
				continue // per-second statistics, or raw values the k6 module also hands Observe
			}
			s := o.cache[smp.TimeSeries]
			if s == nil {
				s = o.newK6Series(smp)
				o.cache[smp.TimeSeries] = s
			}
			switch s.kind {
			case kindCounter:
				s.value += smp.Value
			case kindGauge:
				s.value = smp.Value
			case kindRate:
				s.den++
				if smp.Value != 0 {
					s.num++
				}
			case kindHist:
				v := smp.Value
				if m.Contains == metrics.Time {
					v /= 1000 // k6 keeps time in ms
				}
				s.h.observe(v)
			}
			s.dirty = true
		}
	}
}

// newK6Series names a k6 metric's series as k6's own Prometheus output does. Caller holds mu.
func (o *promOutput) newK6Series(smp metrics.Sample) *series {
	name, kind := metricName(smp.Metric.Name), kindGauge
	switch smp.Metric.Type {
	case metrics.Counter:
		name, kind = name+"_total", kindCounter
	case metrics.Rate:
		name, kind = name+"_rate", kindRate
	case metrics.Trend:
		kind = kindHist
		switch smp.Metric.Contains {
		case metrics.Time:
			name += "_seconds"
		case metrics.Data:
			name += "_bytes"
		}
	}
	return o.seriesFor(name, smp.Tags.Map(), kind, smp.Time)
}

// flush pushes every series that changed since the last push, at one timestamp; a series'
// first push starts with a zero at its birth, so increase() and rate() count its first
// values. A failed push loses only the points of that push: the next carries the totals.
func (o *promOutput) flush() {
	if o.health.gaveUp() {
		return
	}
	o.mu.Lock()
	now := time.Now().UnixMilli()
	var out []*prompb.TimeSeries
	var pushed []*series
	for _, s := range o.series {
		if !s.dirty {
			if m := s.staleMarker(now); m != nil {
				out = append(out, m...)
				s.lastStamp = m[0].Samples[0].Timestamp
			}
			continue
		}
		s.idle = 0
		ts := max(now, s.lastStamp+1)
		out = append(out, s.encode(ts, o.cfg.classic)...)
		s.dirty, s.lastStamp = false, ts
		pushed = append(pushed, s)
	}
	o.mu.Unlock()
	if len(out) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.cfg.timeout)
	defer cancel()
	n, err := o.push(ctx, out)
	o.health.record(o.logger, len(out), n, err)
	o.mu.Lock()
	for _, s := range pushed {
		if err == nil {
			s.sent = true
		} else {
			s.dirty = true // its totals go with the next push
		}
	}
	o.mu.Unlock()
}
