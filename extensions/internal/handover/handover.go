// Package handover is what `k6 x mqbench run` gives the JS module of the k6 run it starts in
// its own process (the scenario it parsed, the results root, the opt-ins) and what the
// module gives back (the run folder it made), so the file is parsed once and run rewords
// k6's verdict from that run's own folder. A process without a hand-over (plain `k6 run`, a
// pod, a child) reads the MQ_* environment instead: the variables stay the contract there.
package handover

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Run is one run's hand-over. Its exported fields are set before Give and not changed after.
type Run struct {
	File               string             // the scenario file as run names it to k6 (MQ_SCENARIO)
	Scenario           *scenario.Scenario // parsed and validated by run, with its -e values
	Root               string             // the results root: --results, MQ_RESULTS or the default
	AllowFaultCommands bool               // --allow-fault-commands (or MQ_ALLOW_FAULT_COMMANDS=1)
	Progress           string             // MQ_PROGRESS as run chose it; "": the environment's

	mu  sync.Mutex
	dir string
}

// vars are the run's values under the contract's names: the one place the fields become
// variables, for this process (Getenv) and for a child (Environ).
func (r *Run) vars() map[string]string {
	v := map[string]string{}
	if r.Root != "" {
		v[runenv.Results] = r.Root
	}
	if r.AllowFaultCommands {
		v[runenv.AllowFaultCommands] = "1"
	}
	if r.Progress != "" {
		v[runenv.Progress] = r.Progress
	}
	return v
}

// Getenv reads the contract with the run's values over base's, so the readers of runenv
// take the same path with or without a hand-over.
func (r *Run) Getenv(base runenv.Getenv) runenv.Getenv {
	v := r.vars()
	return func(name string) string {
		if s, ok := v[name]; ok {
			return s
		}
		return base(name)
	}
}

// Environ is base (NAME=VALUE entries) with the run's values in place of its own, for a
// child process (a search's steps), which reads them as the contract says.
func (r *Run) Environ(base []string) []string {
	v := r.vars()
	out := make([]string, 0, len(base)+len(v))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, over := v[name]; !over {
			out = append(out, kv)
		}
	}
	for _, name := range []string{runenv.Results, runenv.AllowFaultCommands, runenv.Progress} {
		if s, ok := v[name]; ok {
			out = append(out, runenv.Entry(name, s))
		}
	}
	return out
}

// Made records the run folder the module made for this run (exclusively, so no other run
// writes there).
func (r *Run) Made(dir string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dir = dir
}

// Dir is the run folder the module made; "" when it made none (it stopped before, or a
// distributed runner, which writes a shard).
func (r *Run) Dir() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dir
}

// current is the hand-over of the k6 run this process is running: one k6 run per process.
var current atomic.Pointer[Run]

// Give makes r the hand-over of the k6 run this process starts next; the function it returns
// takes it back once that run returned.
func Give(r *Run) (takeBack func()) {
	current.Store(r)
	return func() { current.CompareAndSwap(r, nil) }
}

// For is the hand-over for the scenario file the module was asked to load; nil without one
// (plain `k6 run`) or for another file.
func For(file string) *Run {
	r := current.Load()
	if r == nil || r.File != file {
		return nil
	}
	return r
}
