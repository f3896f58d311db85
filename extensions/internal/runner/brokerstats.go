package runner

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The broker's side of a cell: while the cell runs (from its consumer VU's start to its
// endCell), a goroutine asks the driver, when it implements driver.BrokerStats, for the
// broker's backlog, CPU and memory about once a second. The samples become the cell's
// broker_side in summary.json (a bounded series and its maxima), one k6 sample a second of
// mq_broker_backlog, mq_broker_cpu_percent and mq_broker_memory_bytes (through takeSecond), and
// the gauges thresholds on those metrics are judged on (Gauge).

// brokerEvery is how often the broker is sampled.
var brokerEvery = time.Second

// brokerTimeout bounds one sample (a broker that stops answering must not hold the cell's
// end: endCell waits for the sampler).
var brokerTimeout = 3 * time.Second

// maxBrokerPoints bounds a cell's series: cells longer than this many seconds get wider
// points (each the highest value of its slot), and a cell that overruns its plan is
// compacted two points into one.
var maxBrokerPoints = 4 * 3600

// brokerSide is one cell's sampler and what it gathered.
type brokerSide struct {
	mu      sync.Mutex
	active  bool // a sampler was started (the driver implements driver.BrokerStats)
	started bool // start ran (once)
	cancel  context.CancelFunc
	done    chan struct{}
	at      time.Time // the cell's start: points' t are seconds since
	step    time.Duration

	points          []results.BrokerPoint
	samples, errors uint64
	firstErr        string
	backlog, cpu    gaugeStat
	mem             gaugeStat
	fresh           *driver.Stats // the latest sample, until takeSecond takes it
}

// gaugeStat is last, min and max of a known value.
type gaugeStat struct {
	last, lo, hi float64
	ok           bool
}

func (g *gaugeStat) observe(v float64) {
	if !g.ok || v < g.lo {
		g.lo = v
	}
	if !g.ok || v > g.hi {
		g.hi = v
	}
	g.last, g.ok = v, true
}

// brokerStep is the width of a point for a cell planned to last span.
func brokerStep(span time.Duration) time.Duration {
	n := int64(span/time.Second) + 1
	if n <= int64(maxBrokerPoints) {
		return time.Second
	}
	return time.Duration((n + int64(maxBrokerPoints) - 1) / int64(maxBrokerPoints) * int64(time.Second))
}

// startBrokerStats starts the cell's sampler, once, if the driver can read the broker.
func (r *Runner) startBrokerStats(cell int) {
	c := r.cells[cell]
	r.mu.Lock()
	drvs, closed := r.drvs, r.closed
	r.mu.Unlock()
	bs, ok := brokerStatsOf(drvs)
	b := &c.broker
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || closed || !ok {
		b.started = true
		return
	}
	b.started, b.active = true, true
	b.at = time.Now()
	b.step = brokerStep(c.cell.Warmup + c.cell.Duration + c.cell.Drain)
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel, b.done = cancel, make(chan struct{})
	go r.sampleBroker(ctx, c, bs, b.done)
}

// stopBrokerStats ends the cell's sampler and waits for it (a sample under way ends within
// brokerTimeout). It never takes r.mu, so Close may call it with r.mu held.
func (c *cellState) stopBrokerStats() {
	b := &c.broker
	b.mu.Lock()
	b.started = true // a cell ended before its start: no sampler later
	cancel, done := b.cancel, b.done
	b.cancel = nil
	b.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
}

// sampleBroker asks the broker now and then every brokerEvery until ctx ends.
func (r *Runner) sampleBroker(ctx context.Context, c *cellState, bs driver.BrokerStats, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(brokerEvery)
	defer tick.Stop()
	for {
		at := time.Now()
		sctx, cancel := context.WithTimeout(ctx, brokerTimeout)
		r.statsMu.Lock()
		st, err := bs.BrokerStats(sctx)
		r.statsMu.Unlock()
		cancel()
		if err != nil && ctx.Err() != nil {
			return // stopped mid-sample: the error is the stop, not the broker's
		}
		c.broker.record(at, st, err, r.clientBacklog(c), r.sc.Broker.URL)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// clientBacklog is mqbench's own backlog of the cell now (acknowledged − received, warm-up
// included), without counting as one of the consumer VU's samples.
func (r *Runner) clientBacklog(c *cellState) int64 {
	return int64(c.acked.Load()+c.warmupSent.Load()) - int64(c.received.Load()+c.warmupRecvd.Load())
}

// record keeps one sample taken at at. rawURL is the broker's URL, whose credentials an
// error text must not carry.
func (b *brokerSide) record(at time.Time, st driver.Stats, err error, client int64, rawURL string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.samples++
	if err != nil {
		b.errors++
		if b.firstErr == "" {
			b.firstErr = redact.Text(err.Error(), rawURL)
		}
	}
	p := results.BrokerPoint{ClientBacklog: &client}
	if st.Backlog >= 0 {
		v := st.Backlog
		p.Backlog = &v
		b.backlog.observe(float64(v))
	}
	if st.CPUPercent >= 0 && !math.IsNaN(st.CPUPercent) && !math.IsInf(st.CPUPercent, 0) {
		v := round(st.CPUPercent, 100)
		p.CPUPercent = &v
		b.cpu.observe(v)
	} else {
		st.CPUPercent = driver.Unknown
	}
	if st.MemoryBytes >= 0 {
		v := st.MemoryBytes
		p.MemoryBytes = &v
		b.mem.observe(float64(v))
	}
	b.fresh = &st
	b.add(at, p)
}

// add puts a point in its slot: a slot already holding one keeps the highest of each field.
func (b *brokerSide) add(at time.Time, p results.BrokerPoint) {
	if b.step <= 0 {
		b.step = time.Second
	}
	slot := int64(max(at.Sub(b.at), 0) / b.step)
	p.T = float64(slot*int64(b.step)) / 1e9
	if n := len(b.points); n > 0 && b.points[n-1].T >= p.T {
		b.points[n-1] = mergePoints(b.points[n-1], p)
		return
	}
	if len(b.points) >= maxBrokerPoints { // longer than planned: halve the resolution
		b.step *= 2
		out := b.points[:0]
		for _, q := range b.points {
			q.T = float64(int64(q.T*1e9)/int64(b.step)*int64(b.step)) / 1e9
			if n := len(out); n > 0 && out[n-1].T == q.T {
				out[n-1] = mergePoints(out[n-1], q)
			} else {
				out = append(out, q)
			}
		}
		b.points = out
		b.add(at, p)
		return
	}
	b.points = append(b.points, p)
}

// mergePoints keeps a's time and the highest known value of each field.
func mergePoints(a, b results.BrokerPoint) results.BrokerPoint {
	a.Backlog = maxPtr(a.Backlog, b.Backlog)
	a.CPUPercent = maxPtr(a.CPUPercent, b.CPUPercent)
	a.MemoryBytes = maxPtr(a.MemoryBytes, b.MemoryBytes)
	a.ClientBacklog = maxPtr(a.ClientBacklog, b.ClientBacklog)
	return a
}

func maxPtr[T int64 | float64](a, b *T) *T {
	if a == nil || (b != nil && *b > *a) {
		return b
	}
	return a
}

// takeFresh hands over the latest sample once (nil: none since the previous call).
func (b *brokerSide) takeFresh() *driver.Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.fresh
	b.fresh = nil
	return s
}

// brokerReport is the cell's broker_side for summary.json; nil when nothing was sampled
// (the driver cannot read the broker, or the cell did not start).
func (c *cellState) brokerReport() *results.BrokerSide {
	b := &c.broker
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.active {
		return nil
	}
	out := &results.BrokerSide{StepS: b.step.Seconds(), Points: append([]results.BrokerPoint{}, b.points...),
		Samples: b.samples, Errors: b.errors, FirstError: b.firstErr}
	if b.backlog.ok {
		v := int64(b.backlog.hi)
		out.BacklogMax = &v
	}
	if b.cpu.ok {
		v := b.cpu.hi
		out.CPUPercentMax = &v
	}
	if b.mem.ok {
		v := int64(b.mem.hi)
		out.MemoryBytesMax = &v
	}
	return out
}

// brokerGauge is a cell's broker-side gauge for thresholds: last, min and max sample.
func (c *cellState) brokerGauge(metric string) (last, lo, hi float64, ok bool) {
	b := &c.broker
	b.mu.Lock()
	defer b.mu.Unlock()
	var g gaugeStat
	switch metric {
	case catalog.BrokerBacklog:
		g = b.backlog
	case catalog.BrokerCPU:
		g = b.cpu
	case catalog.BrokerMemory:
		g = b.mem
	default:
		return 0, 0, 0, false
	}
	return g.last, g.lo, g.hi, g.ok
}
