package runner

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// fakeStats is a driver whose only working method is BrokerStats: it returns its samples in
// turn (the last one again when they run out).
type fakeStats struct {
	driver.Driver
	mu      sync.Mutex
	samples []fakeSample
	calls   atomic.Int64
	block   bool // the call waits for its context (a broker that stopped answering)
}

type fakeSample struct {
	st  driver.Stats
	err error
}

func (f *fakeStats) BrokerStats(ctx context.Context) (driver.Stats, error) {
	n := f.calls.Add(1)
	if f.block {
		<-ctx.Done()
		return driver.UnknownStats(), ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.samples[min(int(n)-1, len(f.samples)-1)]
	return s.st, s.err
}

// plainDriver reads nothing of the broker.
type plainDriver struct{ driver.Driver }

func brokerRunner(t *testing.T, drv driver.Driver) *Runner {
	t.Helper()
	r, err := newRunner(embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 10, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	r.drv, r.drvs = drv, []driver.Driver{drv}
	return r
}

func fastBrokerSampling(t *testing.T) {
	oldEvery, oldTimeout := brokerEvery, brokerTimeout
	brokerEvery, brokerTimeout = 5*time.Millisecond, 50*time.Millisecond
	t.Cleanup(func() { brokerEvery, brokerTimeout = oldEvery, oldTimeout })
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

// Samples become the cell's broker_side, takeSecond's per-second value (once each) and the
// gauges thresholds are judged on; errors keep what was read and the first (redacted) text.
func TestBrokerSideIsSampledWhileTheCellRuns(t *testing.T) {
	fastBrokerSampling(t)
	fake := &fakeStats{samples: []fakeSample{
		{st: driver.Stats{Backlog: 5, CPUPercent: driver.Unknown, MemoryBytes: 1000}},
		{st: driver.Stats{Backlog: 40, CPUPercent: 12.3456, MemoryBytes: 3000}},
		{st: driver.Stats{Backlog: driver.Unknown, CPUPercent: driver.Unknown, MemoryBytes: 2000}, err: errors.New("GET http://admin:s3cr3tpw@broker:15672/api: 503")},
		{st: driver.Stats{Backlog: 2, CPUPercent: 50, MemoryBytes: 2500}},
	}}
	r := brokerRunner(t, fake)
	r.sc.Broker.URL = "amqp://admin:s3cr3tpw@broker:5672/"
	r.startCell(0)
	r.startCell(0) // a second start does not start a second sampler
	waitFor(t, func() bool { return fake.calls.Load() >= 6 })
	a := r.takeSecond(0)
	if a.Broker == nil || a.Broker.Backlog != 2 || a.Broker.CPUPercent != 50 {
		t.Errorf("Second's broker sample %+v, want the latest", a.Broker)
	}
	r.endCell(0)
	calls := fake.calls.Load()
	time.Sleep(30 * time.Millisecond)
	if fake.calls.Load() != calls {
		t.Errorf("the sampler goes on after EndCell: %d calls, then %d", calls, fake.calls.Load())
	}

	b := r.Report().Cells[0].Broker
	if b == nil {
		t.Fatal("no broker_side")
	}
	if b.Samples != uint64(calls) || b.Errors < 1 || !strings.Contains(b.FirstError, "503") || strings.Contains(b.FirstError, "s3cr3tpw") {
		t.Errorf("samples %d (calls %d), errors %d, first error %q", b.Samples, calls, b.Errors, b.FirstError)
	}
	if *b.BacklogMax != 40 || *b.CPUPercentMax != 50 || *b.MemoryBytesMax != 3000 || b.StepS != 1 {
		t.Errorf("maxima %d %v %d step %v", *b.BacklogMax, *b.CPUPercentMax, *b.MemoryBytesMax, b.StepS)
	}
	// Sampled faster than the step: every sample lands in the first point, holding the highest of each.
	if len(b.Points) != 1 || *b.Points[0].Backlog != 40 || *b.Points[0].CPUPercent != 50 || *b.Points[0].ClientBacklog != 0 {
		t.Errorf("points %s", mustJSON(b.Points))
	}
	for _, tc := range []struct {
		metric       string
		last, lo, hi float64
	}{
		{catalog.BrokerBacklog, 2, 2, 40},
		{catalog.BrokerCPU, 50, 12.35, 50},
		{catalog.BrokerMemory, 2500, 1000, 3000},
	} {
		last, lo, hi, ok := r.Gauge(0, tc.metric)
		if !ok || last != tc.last || lo != tc.lo || hi != tc.hi {
			t.Errorf("%s: %v %v %v %v, want %v %v %v", tc.metric, last, lo, hi, ok, tc.last, tc.lo, tc.hi)
		}
	}
	r.takeSecond(0) // takes what came since the first takeSecond
	if r.takeSecond(0).Broker != nil {
		t.Error("a sample was handed to Second twice")
	}
}

func TestBrokerSideAbsent(t *testing.T) {
	fastBrokerSampling(t)
	for _, tc := range []struct {
		name string
		drv  driver.Driver
		run  func(r *Runner)
	}{
		{"driver without BrokerStats", plainDriver{}, func(r *Runner) { r.startCell(0); r.endCell(0) }},
		{"cell never started", &fakeStats{samples: []fakeSample{{st: driver.Stats{Backlog: 1}}}}, func(r *Runner) {}},
		{"cell ended before its start", &fakeStats{samples: []fakeSample{{st: driver.Stats{Backlog: 1}}}}, func(r *Runner) { r.endCell(0); r.startCell(0) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := brokerRunner(t, tc.drv)
			tc.run(r)
			if b := r.Report().Cells[0].Broker; b != nil {
				t.Errorf("broker_side %s, want none", mustJSON(b))
			}
			if _, _, _, ok := r.Gauge(0, catalog.BrokerBacklog); ok {
				t.Error("a broker gauge without samples")
			}
		})
	}
}

// A broker that stops answering holds endCell for one sample's timeout at most.
func TestBrokerSideStopsAHungSample(t *testing.T) {
	fastBrokerSampling(t)
	brokerTimeout = time.Hour
	fake := &fakeStats{block: true}
	r := brokerRunner(t, fake)
	r.startCell(0)
	waitFor(t, func() bool { return fake.calls.Load() >= 1 })
	done := make(chan struct{})
	go func() { r.endCell(0); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("EndCell waits for a hung sample")
	}
}

func TestBrokerPointsAreBounded(t *testing.T) {
	defer func(old int) { maxBrokerPoints = old }(maxBrokerPoints)
	maxBrokerPoints = 10
	for _, tc := range []struct {
		name    string
		span    time.Duration
		samples int // one a second
		step    float64
		points  int
		last    results.BrokerPoint
	}{
		{"within the plan", 5 * time.Second, 8, 1, 8, results.BrokerPoint{T: 7, Backlog: i64(7)}},
		{"long cell: wider points", 30 * time.Second, 31, 4, 8, results.BrokerPoint{T: 28, Backlog: i64(30)}},
		{"overrun: compacted", 5 * time.Second, 25, 4, 7, results.BrokerPoint{T: 24, Backlog: i64(24)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &brokerSide{at: time.Unix(1000, 0), step: brokerStep(tc.span), active: true}
			for i := 0; i < tc.samples; i++ {
				st := driver.Stats{Backlog: int64(i), CPUPercent: driver.Unknown, MemoryBytes: driver.Unknown}
				b.record(b.at.Add(time.Duration(i)*time.Second+time.Millisecond), st, nil, 0, "")
			}
			c := &cellState{}
			c.broker = brokerSide{step: b.step, points: b.points, active: true, backlog: b.backlog, samples: b.samples}
			rep := c.brokerReport()
			if rep.StepS != tc.step || len(rep.Points) != tc.points || len(rep.Points) > maxBrokerPoints {
				t.Fatalf("step %v, %d points: %s", rep.StepS, len(rep.Points), mustJSON(rep.Points))
			}
			last := rep.Points[len(rep.Points)-1]
			if last.T != tc.last.T || *last.Backlog != *tc.last.Backlog || last.CPUPercent != nil || last.MemoryBytes != nil {
				t.Errorf("last point %s, want %s", mustJSON(last), mustJSON(tc.last))
			}
			if *rep.BacklogMax != int64(tc.samples-1) || rep.CPUPercentMax != nil || rep.MemoryBytesMax != nil {
				t.Errorf("maxima %s", mustJSON(rep))
			}
		})
	}
}

// Unknown fields are absent from a point; known zeros are kept.
func TestBrokerPointJSON(t *testing.T) {
	p := results.BrokerPoint{T: 3, Backlog: i64(0), CPUPercent: f64(1.5)}
	if got, want := mustJSON(p), `{"t":3,"backlog":0,"cpu_percent":1.5}`; got != want {
		t.Errorf("%s, want %s", got, want)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
