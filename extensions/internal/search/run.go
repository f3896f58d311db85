package search

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Exit codes of a search besides the ones a step stops it with.
const (
	ExitHeld    = exitcode.OK               // every cell's confirming run held its rate
	ExitNotHeld = exitcode.ThresholdsFailed // a confirming run failed, or no rate held (k6's threshold code)
	// ExitStopped is used when a step stopped the search without an exit code of its own.
	ExitStopped = exitcode.StepFailed
)

// Options are what a search runs with.
type Options struct {
	Scenario *scenario.Scenario // validated, with a search block
	K6       string             // this k6 binary: each step is `K6 x mqbench run STEP -q ARGS…`
	Args     []string           // extra `k6 run` flags, given to every step
	Root     string             // results root (runenv.Root)
	Env      []string           // the steps' environment (MQ_RESULTS is set per step)
	Out, Log io.Writer          // per-step lines (stdout), notes (stderr)
}

// Runner runs one search; Signal forwards a signal to the step running (the search stops
// after it).
type Runner struct {
	o       Options
	src     []byte
	dir     string
	mu      sync.Mutex
	child   *os.Process
	stopped bool
	summary *results.Summary // the last step's
}

// New prepares a search: it reads the scenario file again (steps are rewritten from its text)
// and makes <root>/<scenario>/<UTC ts>/steps.
func New(o Options) (*Runner, error) {
	src, err := os.ReadFile(o.Scenario.File)
	if err != nil {
		return nil, err
	}
	// A folder of its own even when another search started in the same second.
	dir, err := results.NewRunDir(runenv.ScenarioDir(o.Root, o.Scenario.Name), time.Now())
	if err != nil {
		return nil, err
	}
	if err := os.Mkdir(filepath.Join(dir, "steps"), 0o755); err != nil {
		return nil, err
	}
	return &Runner{o: o, src: src, dir: dir}, nil
}

// Dir is the search's results folder.
func (r *Runner) Dir() string { return r.dir }

// Signal stops the search: the running step gets the signal (k6 then writes what it measured
// and exits 105) and no further step starts.
func (r *Runner) Signal(sig os.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.child != nil {
		_ = r.child.Signal(sig)
	}
}

// errStop ends the search early with an exit code.
type errStop struct {
	code int
	msg  string
}

func (e *errStop) Error() string { return e.msg }

// Run searches every cell in turn and writes search.json, search.txt and search.html (also
// when a step stopped it). It returns the result; its ExitCode is the process's.
func (r *Runner) Run() *Result {
	sc, sr := r.o.Scenario, r.o.Scenario.Search
	res := &Result{Schema: Schema, Scenario: sc.Name, Description: sc.Description, File: sc.File, Complete: true,
		StartedAt: time.Now().UTC().Format(time.RFC3339)}
	res.Broker.Type, res.Broker.URL = sc.Broker.Type, redact.URL(sc.Broker.URL)
	res.Search = Params{MaxRate: sr.MaxRate, StepS: sr.Step.Seconds(), Precision: sr.Precision, ConfirmS: sr.Confirm.Seconds(),
		BacklogGrowth: sr.BacklogGrowth}
	if len(sc.Cells) > 0 {
		res.Search.WarmupS, res.Search.DrainS = sc.Cells[0].Warmup.Seconds(), sc.Cells[0].Drain.Seconds()
	}
	var stop *errStop
	for i, c := range sc.Cells {
		cell := Cell{ID: c.ID, Size: c.SizeLabel, SizeBytes: c.Size, StartRate: c.Rate}
		res.Cells = append(res.Cells, cell)
		if stop = r.searchCell(i, &res.Cells[i], res); stop != nil {
			res.Cells[i].Outcome = "stopped"
			break
		}
	}
	res.FinishedAt = time.Now().UTC().Format(time.RFC3339)
	res.ExitCode = ExitHeld
	for _, c := range res.Cells {
		if !c.Held {
			res.ExitCode = ExitNotHeld
		}
	}
	if stop != nil {
		res.Complete, res.ExitCode, res.Stopped = false, stop.code, stop.msg
	}
	if err := Write(r.dir, res); err != nil {
		fmt.Fprintf(r.o.Log, "mqbench search: writing %s: %v\n", r.dir, err)
		if res.ExitCode == ExitHeld {
			res.ExitCode = ExitStopped
		}
	}
	return res
}

// maxConfirms bounds the confirming runs of a cell: when one fails, the rate was not sustained
// and the search goes on below it, at most this many times.
const maxConfirms = 3

func (r *Runner) searchCell(i int, cell *Cell, res *Result) *errStop {
	sc, sr := r.o.Scenario, r.o.Scenario.Search
	c := sc.Cells[i]
	p := Planner{Start: c.Rate, Max: sr.MaxRate, Precision: sr.Precision}
	for confirms := 1; ; confirms++ {
		for rate := p.Next(); rate != 0; rate = p.Next() {
			st, stop := r.step(i, rate, sr.Step, false, res)
			if st != nil {
				cell.Steps = append(cell.Steps, *st)
			}
			if stop != nil {
				return stop
			}
			p.Record(rate, st.OK)
		}
		cell.FoundRate, cell.FirstFail = p.Found(), p.FirstFail()
		if cell.FoundRate == 0 {
			cell.Outcome = "no rate held"
			fmt.Fprintf(r.o.Out, "search %s: no rate held, down to %d msg/s\n", c.ID, p.Floor())
			return nil
		}
		st, stop := r.step(i, cell.FoundRate, sr.Confirm, true, res)
		if st != nil {
			cell.Steps = append(cell.Steps, *st)
		}
		if stop != nil {
			return stop
		}
		cell.Held = st.OK
		switch {
		case st.OK && cell.FirstFail == 0:
			cell.Outcome = "max_rate held"
		case st.OK:
			cell.Outcome = "found"
		case confirms < maxConfirms:
			// Not sustained over the confirming window: search below it.
			fmt.Fprintf(r.o.Out, "search %s: %d msg/s not held by the confirming run; searching below it\n", c.ID, cell.FoundRate)
			p.Record(cell.FoundRate, false)
			continue
		default:
			cell.Outcome = "confirm failed"
		}
		fmt.Fprintf(r.o.Out, "search %s: %d msg/s found, %s\n", c.ID, cell.FoundRate,
			map[bool]string{true: "held by the confirming run", false: "NOT held by the confirming run"}[cell.Held])
		return nil
	}
}

// step runs bin/k6 on a one-cell scenario at rate for dur and judges it.
func (r *Runner) step(i, rate int, dur time.Duration, confirm bool, res *Result) (*Step, *errStop) {
	sc := r.o.Scenario
	c := sc.Cells[i]
	r.mu.Lock()
	stopped := r.stopped
	r.mu.Unlock()
	if stopped {
		return nil, &errStop{105, "stopped by a signal"}
	}
	name := c.ID + "-" + strconv.Itoa(rate)
	if confirm {
		name += "-confirm"
	}
	stepDir, err := filepath.Abs(filepath.Join(r.dir, "steps", name))
	if err != nil {
		return nil, &errStop{ExitStopped, err.Error()}
	}
	if err := os.MkdirAll(stepDir, 0o755); err != nil {
		return nil, &errStop{ExitStopped, err.Error()}
	}
	payload := ""
	if pf := sc.Workload.Payload.File; pf != "" {
		payload = "payload" + filepath.Ext(pf)
		if err := stepPayload(pf, stepDir, payload, c.Size); err != nil {
			return nil, &errStop{ExitStopped, "copying the payload file into the step's folder: " + err.Error()}
		}
	}
	doc, err := stepScenario(r.src, sc.File, i, c.ID, rate, dur, payload)
	if err != nil {
		return nil, &errStop{exitcode.InvalidScenario, fmt.Sprintf("cannot write the step scenario for %s at %d/s: %v", c.ID, rate, err)}
	}
	file := filepath.Join(stepDir, sc.Name+".yaml")
	var invalid *childrun.InvalidError
	if _, err := childrun.WriteScenario(file, stepComment(sc.File), doc); errors.As(err, &invalid) {
		return nil, &errStop{exitcode.InvalidScenario, "the step scenario does not validate (a bug in mqbench search): " + err.Error()}
	} else if err != nil {
		return nil, &errStop{ExitStopped, err.Error()}
	}
	kind := "step"
	if confirm {
		kind = "confirm"
	}
	fmt.Fprintf(r.o.Log, "mqbench search: %s %s at %d msg/s for %s (%s)\n", c.ID, kind, rate, dur, filepath.Join(r.dir, "steps", name))
	out, err := childrun.Run(childrun.Child{K6: r.o.K6, File: file, Results: stepDir, Args: r.o.Args, Env: r.o.Env,
		Log: filepath.Join(stepDir, "k6.log"), Started: r.started})
	r.started(nil)
	if err != nil {
		return nil, &errStop{ExitStopped, err.Error()}
	}
	code := out.ExitCode
	st := &Step{Rate: rate, Confirm: confirm, ExitCode: code, Reasons: []string{}}
	// 117: the step's generator could not keep its rate (dropped sends): the rate did not
	// hold, as a failed threshold (judge names the drops).
	if code != 0 && code != ExitNotHeld && code != exitcode.GeneratorBehind {
		msg := fmt.Sprintf("%s at %d msg/s: k6 exited %d", c.ID, rate, code)
		if t := strings.TrimSpace(out.Stderr); t != "" {
			msg += ": " + childrun.LastLines(t, 5)
		}
		st.Reasons = []string{msg}
		r.fill(st, stepDir, res) // what it measured, if anything
		return st, &errStop{code, msg}
	}
	if err := r.fill(st, stepDir, res); err != nil {
		st.Reasons = append(st.Reasons, "no results: "+err.Error())
		return st, &errStop{ExitStopped, fmt.Sprintf("%s at %d msg/s: k6 exited %d but its results cannot be read: %v", c.ID, rate, code, err)}
	}
	judge(st, r.summary, r.o.Scenario.Search.BacklogGrowth)
	verdict := "ok"
	if !st.OK {
		verdict = "FAIL: " + strings.Join(st.Reasons, "; ")
	}
	fmt.Fprintf(r.o.Out, "search %s %-7s %7d msg/s: recv %.0f/s, e2e p50 %s p99 %s, backlog %d: %s\n",
		c.ID, kind, rate, st.ReceiverRate, us(st.E2EP50US), us(st.E2EP99US), st.BacklogEnd, verdict)
	return st, nil
}

// fill reads the step's results folder (<stepDir>/<scenario>/<ts>) through the results
// package: the summary goes to r.summary, its folder to st.Dir, the broker's address to res.
func (r *Runner) fill(st *Step, stepDir string, res *Result) error {
	r.summary = nil
	run, err := childrun.Load(stepDir, r.o.Scenario.Name)
	if err != nil {
		return err
	}
	r.summary = &run.Summary
	if rel, err := filepath.Rel(mustAbs(r.dir), run.Dir); err == nil {
		st.Dir = filepath.ToSlash(rel)
	}
	if run.Summary.Broker.URL != "" {
		res.Broker.URL = run.Summary.Broker.URL
	}
	return nil
}

func mustAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// started records the step running (nil: none), so Signal reaches it.
func (r *Runner) started(p *os.Process) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.child = p
}
