package runner

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/cpu"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Per second and cell, the consumer VU turns what was measured into a handful of k6
// samples (counts, and per latency count/min/mean/max/percentiles), so k6 keeps no
// per-message sample and a run's memory does not depend on its rate or length. The same
// interval histograms go, exactly, into an HdrHistogram interval log per cell and kind.

// TrendMetric names the k6 trend of each recorded distribution kind (catalog.Trends).
var TrendMetric = func() map[string]string {
	m := map[string]string{}
	for _, t := range catalog.Trends {
		m[t.Kind] = t.Metric
	}
	return m
}()

// Aggregate is one second of one cell (counts are increments since the previous one).
type Aggregate struct {
	Sent, Acked, Received, Errors, BytesSent, BytesReceived uint64
	BacklogMax                                              int64
	HasBacklog                                              bool
	Broker                                                  *driver.Stats // the broker's latest sample, if one came this second (brokerstats.go)
	// Trends by kind (results.Kinds), only those with values in the interval.
	Trends map[string]hist.Interval
}

// secondState is the consumer VU's bookkeeping between two seconds.
type secondState struct {
	sent, acked, recv, errs, bs, br uint64
	hlogs                           map[string]*hlog
	// The host's CPU steal: read at the cell's start and every second, each second that had
	// any kept (on the interval logs' clock: the cell's start).
	steal     cpu.StealMeter
	stealAt   time.Time
	hostSteal []results.StealSecond
}

// hists are a cell's distributions by kind.
func (c *cellState) hists() map[string]*hist.Hist {
	return map[string]*hist.Hist{"publish": c.publish, "e2e": c.e2e, "e2e_intended": c.e2eIntended, "schedule_lag": c.lag}
}

// begin starts the cell's interval histograms and interval logs, once, on whatever touches
// the cell first (its first send, or its consumer VU).
func (r *Runner) begin(c *cellState) {
	c.beginOnce.Do(func() {
		now := time.Now()
		c.startedAt.Store(&now)
		schema, native := int32(0), false
		if r.nativeSchema != nil {
			schema, native = r.nativeSchema()
		}
		for _, h := range c.hists() {
			h.EnableIntervals()
			if native {
				h.EnableNative(schema)
			}
		}
		c.sec.steal.Percent()
		c.sec.stealAt = now
		c.sec.hlogs = map[string]*hlog{}
		if r.resultsDir == "" {
			return
		}
		for _, kind := range results.Kinds {
			rel := "hlog/" + c.cell.ID + "." + kind + ".hlog"
			l, err := openHlog(filepath.Join(r.resultsDir, filepath.FromSlash(rel)), r.sc.Name, c.cell.ID, kind)
			if err != nil {
				r.hlogErr.set(err)
				continue
			}
			l.rel = rel
			c.sec.hlogs[kind] = l
		}
	})
}

// startCell starts a cell (RunCell, in its consumer VU).
func (r *Runner) startCell(cell int) {
	r.begin(r.cells[cell])
	r.thr.set(r.cells[cell].cell.ConsumerRate)
	r.startHandoff(r.cells[cell])
	r.startBrokerStats(cell)
}

// takeSecond returns what the cell measured since the previous call and appends each interval
// histogram to the cell's interval log. Only RunCell calls it.
func (r *Runner) takeSecond(cell int) Aggregate {
	c := r.cells[cell]
	r.begin(c)
	c.secMu.Lock()
	defer c.secMu.Unlock()
	s := &c.sec
	now := time.Now()
	a := Aggregate{Trends: map[string]hist.Interval{}}
	take := func(v uint64, last *uint64) uint64 { d := v - *last; *last = v; return d }
	a.Sent = take(c.sent.Load(), &s.sent)
	a.Acked = take(c.acked.Load(), &s.acked)
	a.Received = take(c.received.Load(), &s.recv)
	a.Errors = take(c.errors.Load(), &s.errs)
	a.BytesSent = take(c.bytesSent.Load(), &s.bs)
	a.BytesReceived = take(c.bytesReceived.Load(), &s.br)
	a.BacklogMax, a.HasBacklog = c.backlog.takeSecondMax()
	a.Broker = c.broker.takeFresh()
	for kind, h := range c.hists() {
		l := s.hlogs[kind]
		in := h.TakeInterval(l != nil)
		if l != nil {
			l.write(now, in)
		}
		if in.Count > 0 {
			a.Trends[kind] = in
			if kind == "e2e" {
				c.prog.addE2E(in)
				c.tl.addLatency(r.now(), in.Q[0], in.Q[3], in.Max) // IntervalQuantiles: 50, …, 99
			}
		}
	}
	c.recordSteal(now)
	return a
}

// recordSteal keeps the host's CPU steal of the second that ends now, if it stole any.
// The caller holds secMu.
func (c *cellState) recordSteal(now time.Time) {
	s := &c.sec
	pct, ok := s.steal.Percent()
	if ok && pct > 0 {
		start := c.startedAt.Load()
		s.hostSteal = append(s.hostSteal, results.StealSecond{
			Start: round(s.stealAt.Sub(*start).Seconds(), 1e3), Length: round(now.Sub(s.stealAt).Seconds(), 1e3),
			Pct: round(pct, 100),
		})
	}
	s.stealAt = now
}

// steal returns the cell's overall host steal (nil where it could not be read) and the
// seconds that had any.
func (c *cellState) steal() (*float64, []results.StealSecond) {
	c.secMu.Lock()
	defer c.secMu.Unlock()
	pct, ok := c.sec.steal.Overall()
	if !ok {
		return nil, c.sec.hostSteal
	}
	pct = round(pct, 100)
	return &pct, c.sec.hostSteal
}

// round rounds x to 1/per (per 1e3: milliseconds of seconds; per 100: a percentage to 0.01).
func round(x, per float64) float64 { return math.Round(x*per) / per }

// closeHlogs ends the cell's interval logs (after its final takeSecond).
func (r *Runner) closeHlogs(c *cellState) {
	c.stopBrokerStats() // the cell ended (endCell) or the run closes: stop asking the broker
	c.secMu.Lock()
	defer c.secMu.Unlock()
	for _, l := range c.sec.hlogs {
		if err := l.close(); err != nil {
			r.hlogErr.set(err)
		}
	}
	for _, h := range c.hists() {
		h.DisableIntervals()
	}
}

// hlogPaths lists the cell's interval logs relative to the results folder.
func (c *cellState) hlogPaths() map[string]string {
	c.secMu.Lock()
	defer c.secMu.Unlock()
	if len(c.sec.hlogs) == 0 {
		return nil
	}
	out := map[string]string{}
	for kind, l := range c.sec.hlogs {
		out[kind] = l.rel
	}
	return out
}

// hlog is one HdrHistogram interval log (the format of Java's HistogramLogWriter, version
// 1.3): a StartTime header, then per interval "start,length,max,histogram" with start and
// length in seconds since StartTime, max in ms and the interval's V2 compressed histogram
// of nanosecond values. Java's HistogramLogProcessor and HdrHistogram_c read it.
type hlog struct {
	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	start time.Time // StartTime
	last  time.Time // end of the previous interval
	rel   string
}

func openHlog(path, scenario, cell, kind string) (*hlog, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	l := &hlog{f: f, w: bufio.NewWriter(f), start: now, last: now}
	ms := now.UnixMilli()
	fmt.Fprintf(l.w, "#[mqbench %s, cell %s, %s latency, values in ns, one interval per second]\n", scenario, cell, kind)
	fmt.Fprintf(l.w, "#[Histogram log format version 1.3]\n")
	fmt.Fprintf(l.w, "#[StartTime: %d.%03d (seconds since epoch), %s]\n", ms/1000, ms%1000, now.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(l.w, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
	return l, l.w.Flush()
}

// write appends the interval that ends now; empty intervals are skipped (the next line's
// start says where it began).
func (l *hlog) write(now time.Time, in hist.Interval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if in.Count > 0 && in.Encoded != nil && l.w != nil {
		fmt.Fprintf(l.w, "%.3f,%.3f,%.3f,%s\n", l.last.Sub(l.start).Seconds(), now.Sub(l.last).Seconds(), in.MaxMs(), in.Encoded)
		_ = l.w.Flush() // a stopped run keeps every full second
	}
	l.last = now
}

func (l *hlog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return nil
	}
	err := l.w.Flush()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.w = nil
	return err
}

// firstErr keeps the first error set.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

func (f *firstErr) get() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

// HlogError is the first interval log that could not be written, if any.
func (r *Runner) HlogError() error { return r.hlogErr.get() }
