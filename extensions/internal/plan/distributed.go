package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A distributed run: N k6 processes (the k6-operator's runner pods, or `make distributed` on
// one machine) each run one execution segment of the scenario. MQ_RUNNERS=N and MQ_RUN_ID
// (the same for every runner) say so. Each runner then
//   - takes exactly rate/N of every cell (VU budgets rounded to multiples of N, since k6
//     splits an arrival-rate executor's rate by its maxVUs) and has its own consumer VU;
//   - sends to and receives from its own destination, <destination>.r<i>, so a message is
//     produced and received in one process and its latency is read on one clock;
//   - judges nothing itself (each runner sees only its share: k6-operator users get a
//     verdict per pod that says nothing about the run); it writes a shard, and
//     `k6 x mqbench merge` judges the scenario's thresholds on the merged data.

// Distributed is the run's distribution, from the environment; Runners == 0: a plain run.
type Distributed struct {
	Runners int
	RunID   string
	Slack   time.Duration // setup waits until its start + slack, so runners start together
	// Shared: every runner uses the scenario's destination itself (scenario distributed
	// block); Producers runners only produce, the next Consumers only consume.
	Shared               bool
	Producers, Consumers int
	// ClockRef is the reference clock's address (MQ_CLOCK_REF, host:port): each runner
	// measures its offset to it (runner/clock.go). Empty: offsets are not measured.
	ClockRef string
}

// Role is what runner i (1-based) does.
func (d Distributed) Role(i int) (produces, consumes bool) {
	switch {
	case i <= d.Producers:
		return true, false
	case i <= d.Producers+d.Consumers:
		return false, true
	}
	return true, true
}

// Producing is how many runners produce: each takes rate/Producing of every cell.
func (d Distributed) Producing() int { return d.Runners - d.Consumers }

// ReadDistributed reads MQ_RUNNERS, MQ_RUN_ID and MQ_START_SLACK with env (os.Getenv in a
// run; the k8s generator passes the environment its runner pods will get), and refuses what
// cannot work in a distributed run (an in-process broker each runner would have alone,
// aborting one runner on its share's verdict). Problems are scenario errors: nothing has
// connected.
func ReadDistributed(sc *scenario.Scenario, env runenv.Getenv) (Distributed, []string) {
	n, err := runenv.RunnerCount(env)
	if err != nil {
		return Distributed{}, []string{err.Error()}
	}
	if n == 0 {
		return Distributed{}, nil // a plain run
	}
	var errs []string
	d := Distributed{Runners: n, Slack: runenv.DefaultStartSlack}
	if d.RunID, err = runenv.SharedRunID(env); err != nil {
		errs = append(errs, err.Error())
	}
	if slack, set, err := runenv.Duration(env, runenv.StartSlack, "5s", false); err != nil {
		errs = append(errs, err.Error())
	} else if set {
		d.Slack = slack
	}
	d.Shared, d.Producers, d.Consumers = sc.Distributed.Shared, sc.Distributed.Producers, sc.Distributed.Consumers
	d.ClockRef = runenv.ClockAddr(env)
	switch roles := d.Producers + d.Consumers; {
	case roles > n:
		errs = append(errs, fmt.Sprintf("distributed: producers: %d + consumers: %d is %d roles for %d runners (%s)", d.Producers, d.Consumers, roles, n, runenv.Runners))
	case d.Shared && d.Producers == n:
		errs = append(errs, fmt.Sprintf("distributed: producers: %d of %d runners leaves no consumer runner", d.Producers, n))
	case d.Shared && d.Consumers == n:
		errs = append(errs, fmt.Sprintf("distributed: consumers: %d of %d runners leaves no producer runner", d.Consumers, n))
	}
	if strings.EqualFold(sc.Broker.URL, "embedded") {
		errs = append(errs, "broker.url: embedded cannot serve a distributed run (each runner would measure its own in-process server); give a broker every runner reaches")
	}
	if len(sc.Faults.Schedule) > 0 {
		errs = append(errs, "faults: a distributed run cannot inject faults (every runner would kill a node, through commands that reach only a local cluster); run a scenario with faults from one k6")
	}
	if sc.Search != nil {
		errs = append(errs, "search: a capacity search runs one k6 per step (k6 x mqbench search); a distributed run would only run the matrix once at its starting rates")
	}
	for _, c := range sc.Cells {
		if c.Max {
			errs = append(errs, fmt.Sprintf("cell %s: rate: max cannot be split across runners (each runner's closed loop would only be bounded by its own window, and the message count by nobody); run it from one k6, or give the cell a fixed rate", c.ID))
		}
		if c.Replay != nil {
			errs = append(errs, fmt.Sprintf("cell %s: a replay cannot be split across runners (each would send the whole recording); run it from one k6", c.ID))
		}
		if len(c.Mix) > 0 {
			errs = append(errs, fmt.Sprintf("cell %s: a size mix cannot be merged across runners yet (each runner's counts per size would be summed, its latencies per size not); run it from one k6", c.ID))
		}
		if len(c.Stages) > 0 {
			errs = append(errs, fmt.Sprintf("cell %s: stages cannot be split across runners yet (k6 stripes a profile's iterations over its runners, and each runner's intended times would have to follow its stripe); run it from one k6", c.ID))
		}
		if c.Backlog > 0 {
			errs = append(errs, fmt.Sprintf("cell %s: backlog cannot be split across runners (each runner would hold its consumers back until the whole backlog waited in its own destination); run it from one k6", c.ID))
		}
	}
	for _, t := range AllThresholds(sc) {
		if m := MetricName(t.Metric); m == "iterations" || m == "iteration_duration" {
			errs = append(errs, fmt.Sprintf("thresholds.%s: k6's %s cannot be merged across runners; judge mqbench's metrics or dropped_iterations", t.Metric, m))
		}
		for _, e := range t.Expressions {
			if e.AbortOnFail {
				errs = append(errs, fmt.Sprintf("thresholds.%s: abort_on_fail cannot work in a distributed run (a runner sees only its share; the merge judges the run)", t.Metric))
			}
		}
	}
	return d, errs
}

// AllThresholds is every threshold of the scenario: its own, then each cell's.
func AllThresholds(sc *scenario.Scenario) []scenario.Threshold {
	out := append([]scenario.Threshold{}, sc.Thresholds...)
	for _, c := range sc.Cells {
		out = append(out, c.Thresholds...)
	}
	return out
}

// Partitioned is runner i's own destination.
func Partitioned(dest string, runner int) string { return fmt.Sprintf("%s.r%d", dest, runner) }
