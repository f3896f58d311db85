// Package jsmodule is the JS module "k6/x/mqbench" the entry script imports: it loads a
// scenario, hands k6 the options of its plan, and runs the measurement in Go so that no
// JavaScript runs per message. The module root registers it.
package jsmodule

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/output/promrw"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/runner"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/js/modules"
	"go.k6.io/k6/v2/lib"
)

// Name is the module's import path in the entry script.
const Name = "k6/x/mqbench"

// New is the module registered under Name.
func New() *RootModule { return new(RootModule) }

var _ modules.Module = (*RootModule)(nil)

// RootModule is process-wide: one run shared by every VU, so connections and the delivery
// ledger are independent of the VU count.
type RootModule struct {
	mu         sync.Mutex
	path       string
	run        *runner.Runner
	plan       *plan.Plan // k6 options, thresholds and cells
	options    []byte     // plan's k6 options as JSON: each VU gets its own decoded copy
	final      []judged   // mqbench's verdicts' final results, once the run closed (conclude)
	resultsDir string
	boundOnce  sync.Once     // trend sinks bounded (boundedsink.go)
	getenv     runenv.Getenv // the MQ_* contract: run's hand-over over the process environment

	// A distributed run (plan.Distributed): this runner's place in it, known from setup on.
	dist                           plan.Distributed
	runner                         int
	segment, sequence, destination string
	started                        time.Time
}

// load parses and validates the scenario once per process. Any problem ends the process
// with exitcode.InvalidScenario and the full list of problems, before any VU starts.
func (rm *RootModule) load(path string, vars scenario.Vars) *RootModule {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.run != nil {
		if path != rm.path {
			fatal(exitcode.InvalidScenario, "mqbench: one k6 process runs one scenario; got "+rm.path+" and "+path)
		}
		return rm
	}
	if path == "" {
		fatal(exitcode.InvalidScenario, "mqbench: no scenario given: run with -e "+runenv.Entry(runenv.Scenario, "scenarios/<name>.yaml"))
	}
	sc, h := rm.scenarioFor(path, vars)
	if err := scenario.CheckFaultCommands(path, sc, rm.getenv); err != nil {
		fatal(exitcode.InvalidScenario, err.Error()) // every run loads here: the one opt-in check
	}
	// MQ_SAMPLES overrides the scenario's samples key for one run (e.g. raw points for one
	// debugging run into InfluxDB without editing the file).
	if v, err := runenv.OneOf(rm.getenv, runenv.Samples, scenario.SamplesAggregated, scenario.SamplesRaw); err != nil {
		fatal(exitcode.InvalidScenario, "mqbench: "+err.Error())
	} else if v != "" {
		sc.Samples = v
	}
	dist, problems := plan.ReadDistributed(sc, rm.getenv)
	if len(problems) > 0 {
		fatal(exitcode.InvalidScenario, "invalid distributed run of "+path+":\n  - "+strings.Join(problems, "\n  - "))
	}
	rm.dist = dist
	// The plan comes first: the runner sends on its schedules, and its tags carry the run id.
	id := runner.NewRunID()
	rm.plan = plan.Build(sc, runner.FormatRunID(id), dist.Runners)
	opts := []runner.Option{runner.WithRunID(id), runner.WithNativeBuckets(promrw.Schema)}
	if scenario.FaultCommandsAllowed(rm.getenv) {
		opts = append(opts, runner.WithFaultCommandsAllowed())
	}
	delay, testDelay := testOnlyDuration(rm.getenv, TestSendDelayEnv, "70us", false)
	if testDelay {
		opts = append(opts, runner.WithTestSendDelay(delay))
	}
	run, err := runner.New(rm.plan, opts...)
	if err != nil {
		fatal(exitcode.InvalidScenario, "mqbench: "+path+": "+err.Error())
	}
	rm.path, rm.run = path, run
	if testDelay {
		fmt.Fprintf(os.Stderr, "mqbench: every message held %s before its send, for a test (%s)\n", delay, TestSendDelayEnv)
	}
	if rm.options, err = rm.plan.Options.JSON(); err != nil {
		fatal(exitcode.InvalidScenario, "mqbench: "+path+": "+err.Error())
	}
	root := runenv.Root(rm.getenv)
	// A plain run's folder is made now, exclusively, so two runs started in the same second
	// never share one (a distributed runner's shard folder is set in joinDistributed).
	rm.resultsDir = runenv.RunDir(root, sc.Name, time.Now())
	if dist.Runners == 0 {
		if rm.resultsDir, err = results.NewRunDir(runenv.ScenarioDir(root, sc.Name), time.Now()); err != nil {
			fatal(exitcode.ResultsUnwritable, "mqbench: cannot create the results folder: "+err.Error())
		}
		if h != nil {
			h.Made(rm.resultsDir) // run rewords k6's verdict from this folder, no other run's
		}
	}
	return rm
}

// scenarioFor is the scenario to run and the contract to read: run's hand-over when this
// process's `k6 x mqbench run` gave one for path (parsed once, there), else the file and the
// process environment, as in a plain `k6 run`.
func (rm *RootModule) scenarioFor(path string, vars scenario.Vars) (*scenario.Scenario, *handover.Run) {
	if h := handover.For(path); h != nil && h.Scenario != nil {
		rm.getenv = h.Getenv(os.Getenv)
		sc := *h.Scenario // a copy: MQ_SAMPLES may change this run's
		return &sc, h
	}
	rm.getenv = os.Getenv
	sc, err := scenario.LoadVars(path, vars)
	if err != nil {
		fatal(exitcode.InvalidScenario, err.Error())
	}
	return sc, nil
}

// NewModuleInstance is called for every VU.
func (rm *RootModule) NewModuleInstance(vu modules.VU) modules.Instance {
	m, err := registerMetrics(vu.InitEnv().Registry)
	if err != nil {
		// Metric names are constants: this is a programming error, not user input.
		panic(err)
	}
	return &ModuleInstance{root: rm, vu: vu, m: m}
}

// ModuleInstance is one VU's view of the shared run.
type ModuleInstance struct {
	root *RootModule
	vu   modules.VU
	m    *mqMetrics
}

// Exports lists the functions lib/mqbench.js calls.
func (mi *ModuleInstance) Exports() modules.Exports {
	return modules.Exports{Named: map[string]any{
		"load":         mi.Load,
		"connect":      mi.Connect,
		"publish":      mi.Publish,
		"publishMax":   mi.PublishMax,
		"consume":      mi.Consume,
		"close":        mi.Close,
		"writeResults": mi.WriteResults,
	}}
}

// scenarioVars gives the scenario's ${NAME} k6's -e NAME=VALUE values before the process
// environment, so a plain `k6 run lib/mqbench.js -e KAFKA_URL=…` reads them as
// `k6 x mqbench run` does.
func (mi *ModuleInstance) scenarioVars() scenario.Vars {
	var env map[string]string
	if ie := mi.vu.InitEnv(); ie != nil && ie.TestPreInitState != nil {
		env = ie.RuntimeOptions.Env
	}
	return scenario.Vars{Lookup: func(name string) (string, bool) {
		if v, ok := env[name]; ok {
			return v, true
		}
		return os.LookupEnv(name)
	}}
}

// Load (init context) validates the scenario and returns what the entry script exports.
// Every VU gets a fresh copy of the options: the JS runtime wraps a Go map as a live view,
// and k6 writes into each VU's options object, so a shared map would be written concurrently.
func (mi *ModuleInstance) Load(path string) (map[string]any, error) {
	rm := mi.root.load(path, mi.scenarioVars())
	rm.boundOnce.Do(func() { boundTrends(mi.vu.InitEnv().Registry, rm.run.Scenario(), rm.run.Raw()) })
	var opts map[string]any
	if err := json.Unmarshal(rm.options, &opts); err != nil {
		return nil, err
	}
	return map[string]any{"options": opts, "name": rm.run.Scenario().Name, "runId": rm.run.RunIDString()}, nil
}

// Connect (setup) opens the broker and every connection; failures end the run with the
// unreachable or rejected exit code and one line naming the broker.
func (mi *ModuleInstance) Connect() {
	rm, run := mi.root, mi.root.run
	rm.started = time.Now()
	var opts []runner.Option
	if rm.dist.Runners > 0 {
		opts = rm.joinDistributed(lib.GetExecutionState(mi.vu.Context()))
	}
	if err := run.Connect(mi.vu.Context(), append(opts, runner.WithResultsDir(rm.resultsDir))...); err != nil {
		code, msg := exitForConnectError(err)
		_ = run.Close(mi.vu.Context())
		rm.writeNotRun(msg)
		fatal(code, msg)
	}
	if rm.dist.Runners > 0 {
		// The operator resumes runners one after another; each then connects at its own
		// pace. Waiting until start + slack lines up the runners' cells, whatever the
		// connection took (the merge checks the spread it got).
		time.Sleep(time.Until(rm.started.Add(rm.dist.Slack)))
	}
	run.StartProgress(os.Stderr, runner.ProgressEvery(rm.getenv), plan.CellGap)
}

// joinDistributed finds this runner's place (k6's execution segment), and gives it its own
// destination and shard folder: the options its Connect takes.
func (rm *RootModule) joinDistributed(es *lib.ExecutionState) []runner.Option {
	i, seg, seq, err := identity(es, rm.dist.Runners)
	if err != nil {
		fatal(exitcode.InvalidMerge, "mqbench: invalid distributed run: "+err.Error())
	}
	rm.runner, rm.segment, rm.sequence = i, seg, seq
	rm.destination = plan.Partitioned(rm.run.Scenario().Workload.Destination, i)
	var opts []runner.Option
	if rm.dist.Shared {
		rm.destination = rm.run.Scenario().Workload.Destination
		opts = append(opts, rm.shared(i))
	}
	rm.resultsDir = runenv.ShardDir(runenv.Root(rm.getenv), rm.run.Scenario().Name, rm.dist.RunID, i, rm.dist.Runners)
	return append(opts, runner.WithDestination(rm.destination))
}

// Close (teardown) flushes, closes and removes what the run created, then gives the run its
// one verdict (conclude).
func (mi *ModuleInstance) Close() error {
	err := mi.root.run.Close(mi.vu.Context())
	mi.conclude()
	return err
}

// cell finds the matrix cell of the k6 scenario this VU is running.
func (mi *ModuleInstance) cell() (int, time.Time, error) {
	ss := scenarioState(mi.vu)
	if ss == nil {
		return 0, time.Time{}, errors.New("mqbench: publish/consume must run inside a scenario")
	}
	i, ok := mi.root.plan.Cell(ss.Name)
	if !ok {
		return 0, time.Time{}, errors.New("mqbench: scenario " + ss.Name + " is not one of this run's cells (" + strings.Join(mi.root.plan.ScenarioNames(), ", ") + ")")
	}
	return i, ss.StartTime, nil
}
