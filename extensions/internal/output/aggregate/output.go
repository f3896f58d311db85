package aggregate

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// Name is the name given to --out.
const Name = "mqbench-influxdb"

// New is the k6 output constructor behind --out mqbench-influxdb.
func New(p output.Params) (output.Output, error) { return newAggOutput(p) }

type aggOutput struct {
	cfg    config
	logger logrus.FieldLogger
	client *http.Client

	mu        sync.Mutex
	windows   map[int64]map[metrics.TimeSeries]*acc // window start (unix ns) → series
	watermark int64                                 // windows before it are written; later samples go here
	tagCache  map[*metrics.TagSet]string            // line-protocol tag part of a tag set
	pool      [][]float64                           // trend value slices to reuse

	flusher *output.PeriodicFlusher
	pending [][]byte // bodies whose write failed, retried on the next flush (bounded)

	// Totals for the log line at Stop (and for tests).
	points, writes, failed int64
}

func newAggOutput(p output.Params) (*aggOutput, error) {
	cfg, err := parseConfig(p.Environment, p.ConfigArgument)
	if err != nil {
		return nil, err
	}
	return &aggOutput{
		cfg:      cfg,
		logger:   p.Logger.WithField("output", Name),
		client:   newHTTPClient(cfg.insecure),
		windows:  map[int64]map[metrics.TimeSeries]*acc{},
		tagCache: map[*metrics.TagSet]string{},
	}, nil
}

// Description is shown by k6 run under "output:".
func (o *aggOutput) Description() string {
	return fmt.Sprintf("%s (%s, db %s, %s windows)", Name, o.cfg.addr, o.cfg.db, o.cfg.window)
}

// Start creates the database (harmless when it exists or when the user may not) and starts
// the periodic flush.
func (o *aggOutput) Start() error {
	if err := o.query("CREATE DATABASE " + quoteIdent(o.cfg.db)); err != nil {
		o.logger.WithError(err).Debug("could not create the database; most likely harmless")
	}
	pf, err := output.NewPeriodicFlusher(o.cfg.pushInterval, func() { o.flush(false) })
	if err != nil {
		return err
	}
	o.flusher = pf
	return nil
}

// Stop writes every open window.
func (o *aggOutput) Stop() error {
	o.flusher.Stop()
	o.flush(true)
	o.logger.WithFields(logrus.Fields{"points": o.points, "writes": o.writes, "failed": o.failed}).Debug("stopped")
	if len(o.pending) > 0 {
		return fmt.Errorf("%s: %d batches could not be written to %s", Name, len(o.pending), o.cfg.addr)
	}
	return nil
}

// AddMetricSamples aggregates in place: a map lookup and an append per sample, never I/O.
func (o *aggOutput) AddMetricSamples(containers []metrics.SampleContainer) {
	w := o.cfg.window.Nanoseconds()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range containers {
		for _, s := range c.GetSamples() {
			t := s.Time.UnixNano()
			start := t - ((t%w)+w)%w
			if start < o.watermark { // its window is already written: count it in the oldest open one
				start = o.watermark
			}
			win := o.windows[start]
			if win == nil {
				win = map[metrics.TimeSeries]*acc{}
				o.windows[start] = win
			}
			a := win[s.TimeSeries]
			if a == nil {
				a = &acc{typ: s.Metric.Type}
				if a.typ == metrics.Trend && len(o.pool) > 0 {
					a.vals, o.pool = o.pool[len(o.pool)-1][:0], o.pool[:len(o.pool)-1]
				}
				win[s.TimeSeries] = a
			}
			a.add(s)
		}
	}
}

// recycle hands a written trend window's value slice back for the next window, so that a
// steady run does not allocate one per series and second (huge ones are left to the GC).
func (o *aggOutput) recycle(a *acc) {
	if cap(a.vals) <= 1<<20 && len(o.pool) < 64 {
		o.mu.Lock()
		o.pool = append(o.pool, a.vals)
		o.mu.Unlock()
	}
	a.vals = nil
}

// flush writes the windows that closed more than grace ago (all of them when final).
func (o *aggOutput) flush(final bool) {
	w := o.cfg.window.Nanoseconds()
	limit := time.Now().Add(-o.cfg.grace).UnixNano() - w // windows starting at or before it are closed
	o.mu.Lock()
	var starts []int64
	for s := range o.windows {
		if final || s <= limit {
			starts = append(starts, s)
		}
	}
	slices.Sort(starts)
	taken := make([]map[metrics.TimeSeries]*acc, len(starts))
	for i, s := range starts {
		taken[i] = o.windows[s]
		delete(o.windows, s)
		o.watermark = max(o.watermark, s+w)
	}
	o.mu.Unlock()

	var body bytes.Buffer
	n := 0
	for i, s := range starts {
		n += o.encode(&body, s, taken[i])
	}
	if n > 0 {
		o.pending = append(o.pending, body.Bytes())
	}
	// Retry what failed before, oldest first; keep at most ~2 minutes of batches.
	for len(o.pending) > 0 {
		if err := o.write(o.pending[0]); err != nil {
			o.failed++
			o.logger.WithError(err).Warn("could not write to InfluxDB; will retry on the next flush")
			if len(o.pending) > 120 {
				o.pending = o.pending[1:]
				o.logger.Error("dropping the oldest aggregated batch: InfluxDB has been failing for too long")
			}
			break
		}
		o.writes++
		o.pending = o.pending[1:]
	}
	o.points += int64(n)
}
