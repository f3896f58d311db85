package executor

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/errext"
	"go.k6.io/k6/v2/lib"
	"go.k6.io/k6/v2/lib/executor"
	"go.k6.io/k6/v2/metrics"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
)

// Executor runs one scenario of Config.
type Executor struct {
	*executor.BaseExecutor
	config Config
	es     *lib.ExecutionState
	et     *lib.ExecutionTuple
	iters  *lib.SegmentedIndex
	itMu   sync.Mutex
}

var _ lib.Executor = &Executor{}

// Init scales the scenario to this instance's execution segment, as k6's executor does.
func (e *Executor) Init(context.Context) error {
	et, err := e.es.ExecutionTuple.GetNewExecutionTupleFromValue(e.config.MaxVUs.Int64)
	if err != nil {
		return err
	}
	e.et, e.iters = et, lib.NewSegmentedIndex(et)
	return nil
}

// nextIteration is a VU's next scenario-local and global iteration number.
func (e *Executor) nextIteration() (uint64, uint64) {
	e.itMu.Lock()
	defer e.itMu.Unlock()
	scaled, unscaled := e.iters.Next()
	return uint64(scaled - 1), uint64(unscaled - 1) //nolint:gosec // from 1
}

// Run hands the scenario's ticks to its VUs until its duration ends, waits up to gracefulStop
// for iterations still running, and returns every VU.
func (e *Executor) Run(parentCtx context.Context, out chan<- metrics.SampleContainer) error {
	duration := e.config.Duration.TimeDuration()
	start := time.Now()
	maxCtx, cancel := context.WithDeadline(parentCtx, start.Add(duration+e.config.GetGracefulStop()))
	defer cancel()
	regCtx, regCancel := context.WithDeadline(maxCtx, start.Add(duration))
	defer regCancel()
	maxCtx = lib.WithScenarioState(maxCtx, &lib.ScenarioState{
		Name: e.config.Name, Executor: e.config.Type, StartTime: start,
		ProgressFn: func() (float64, []string) { return min(1, float64(time.Since(start))/float64(duration)), nil },
	})

	first, offsets, _ := e.et.GetStripedOffsets()
	p := &pool{e: e, maxCtx: maxCtx, regCtx: regCtx, abort: cancel, grow: make(chan struct{}, 1)}
	p.h = arrival.NewHandoff(start, duration, arrival.NewTicks(arrival.Period(e.config.Rate.Int64, e.config.TimeUnit.TimeDuration()), first, offsets), p.dropped(parentCtx, out, start), p.short)
	p.unplanned = e.config.GetMaxVUs(e.et) - e.config.GetPreAllocatedVUs(e.et)

	var err error
	wakes := make([]chan time.Duration, 0, e.config.GetPreAllocatedVUs(e.et))
	vus := make([]lib.ActiveVU, 0, cap(wakes))
	for range cap(wakes) {
		var initVU lib.InitializedVU
		if initVU, err = e.es.GetPlannedVU(e.GetLogger(), false); err != nil {
			break
		}
		vus, wakes = append(vus, p.activate(initVU)), append(wakes, p.h.Park())
	}
	if err == nil {
		for i, vu := range vus {
			p.serve(vu, wakes[i])
		}
		p.allocating.Add(1)
		go p.growing()
		p.h.Begin()
		<-regCtx.Done()
	}
	p.h.Stop()
	p.allocating.Wait() // an unplanned VU being initialized joins, sees the end and leaves
	p.serving.Wait()    // iterations still running end, or gracefulStop (maxCtx) ends them
	cancel()            // VUs deactivate and are returned
	p.active.Wait()
	return errors.Join(err, p.interrupt)
}

// pool is one run's VUs: each serves the handoff on its own goroutine.
type pool struct {
	e              *Executor
	h              *arrival.Handoff
	maxCtx, regCtx context.Context
	abort          context.CancelFunc
	unplanned      int64
	grow           chan struct{} // the lead found no parked VU: initialize one more, if allowed
	allocating     sync.WaitGroup
	serving        sync.WaitGroup
	active         sync.WaitGroup
	interrupt      error // an iteration's interrupt error (test.abort), which ends the run
	interruptOnce  sync.Once
}

func (p *pool) activate(initVU lib.InitializedVU) lib.ActiveVU {
	p.active.Add(1)
	return initVU.Activate(&lib.VUActivationParams{
		RunContext: p.maxCtx, Scenario: p.e.config.Name, Exec: p.e.config.GetExec(),
		Env: p.e.config.GetEnv(), Tags: p.e.config.GetTags(),
		DeactivateCallback: func(u lib.InitializedVU) {
			p.e.es.ReturnVU(u, false)
			p.active.Done()
		},
		GetNextIterationCounters: p.e.nextIteration,
	})
}

func (p *pool) serve(vu lib.ActiveVU, wake chan time.Duration) {
	p.serving.Add(1)
	go func() {
		defer p.serving.Done()
		p.h.Serve(p.regCtx, wake, func(time.Duration) { p.iteration(vu) })
	}()
}

// iteration runs one iteration and keeps k6's counts, as k6's executors do.
func (p *pool) iteration(vu lib.ActiveVU) {
	es := p.e.es
	es.ModCurrentlyActiveVUsCount(+1)
	err := vu.RunOnce()
	es.ModCurrentlyActiveVUsCount(-1)
	if p.maxCtx.Err() != nil { // cut short by gracefulStop or the test's end: not logged
		es.AddInterruptedIterations(1)
		return
	}
	if err != nil && errext.IsInterruptError(err) {
		es.AddInterruptedIterations(1)
		p.interruptOnce.Do(func() { p.interrupt = err })
		p.abort()
		return
	}
	if err != nil {
		text, fields := errext.Format(err)
		p.e.GetLogger().WithFields(logrus.Fields(fields)).Error(text)
	}
	es.AddFullIterations(1)
}

// short asks for one more VU (at most one being initialized at a time, as k6's executor).
func (p *pool) short() {
	select {
	case p.grow <- struct{}{}:
	default:
	}
}

// growing initializes an unplanned VU per request, up to maxVUs, until the regular duration
// ends (the channel stays open: a VU may ask at any time).
func (p *pool) growing() {
	defer p.allocating.Done()
	for p.unplanned > 0 {
		select {
		case <-p.regCtx.Done():
			return
		case <-p.grow:
		}
		p.unplanned--
		initVU, err := p.e.es.GetUnplannedVU(p.maxCtx, p.e.GetLogger())
		if err != nil {
			p.e.GetLogger().WithError(err).Error("Error while allocating unplanned VU")
			continue
		}
		p.serve(p.activate(initVU), nil)
	}
}

// dropped pushes k6's dropped_iterations for ticks no VU was free for, at their due times.
func (p *pool) dropped(ctx context.Context, out chan<- metrics.SampleContainer, start time.Time) func([]time.Duration) {
	es := p.e.es
	tags := es.Test.RunTags
	if es.Test.Options.SystemTags.Has(metrics.TagScenario) {
		tags = tags.With("scenario", p.e.config.Name)
	}
	series := metrics.TimeSeries{Metric: es.Test.BuiltinMetrics.DroppedIterations, Tags: tags}
	return func(due []time.Duration) {
		for _, d := range due {
			metrics.PushIfNotDone(ctx, out, metrics.Sample{TimeSeries: series, Time: start.Add(d), Value: 1})
		}
	}
}
