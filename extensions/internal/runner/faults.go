package runner

// Fault injection: the scenario's faults (scenario.Faults) run in every cell, timed from the
// start of its measured period, through the scenario's kill/start commands (for the project's
// local clusters, scripts/brokers/cluster.sh). What happened is recorded per cell for the
// results: when, which node, how long the command took, and its error if it failed. A fault
// that cannot be carried out does not stop the run: the cell then measured a run without it,
// and the record says so.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

const (
	// faultCommandTimeout bounds one kill or start command (a cluster node's start waits
	// until it rejoined: RabbitMQ and Kafka take tens of seconds).
	faultCommandTimeout = 3 * time.Minute
	// placementTimeout bounds asking the broker where the destination lives.
	placementTimeout = 10 * time.Second
)

// FaultEvent is one thing a fault did: a kill or a start of a node.
type FaultEvent struct {
	Action string    // "kill" or "start"
	Asked  string    // the schedule's node: leader, follower or a name
	Node   string    // the node it resolved to, as the broker names it ("" if unresolved)
	At     time.Time // when the command started
	// Offset is At relative to the start of the cell's measured period.
	Offset  time.Duration
	Took    time.Duration // how long the command ran
	Command string
	Err     string // why the command (or resolving the node) failed; "" when it worked
}

// cellFaults is the fault bookkeeping of one cell.
type cellFaults struct {
	wg     sync.WaitGroup
	mu     sync.Mutex
	events []FaultEvent
}

func (f *cellFaults) record(e FaultEvent) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
}

// Faults returns what the cell's faults did so far, in order of time.
func (r *Runner) Faults(cell int) []FaultEvent {
	f := &r.cells[cell].faults
	f.mu.Lock()
	defer f.mu.Unlock()
	out := append([]FaultEvent(nil), f.events...)
	slices.SortStableFunc(out, func(a, b FaultEvent) int { return a.At.Compare(b.At) })
	return out
}

// startFaults schedules the scenario's faults for a cell whose k6 scenario started at start;
// ctx ends them (the run is being stopped). Called once per cell, by RunCell.
func (r *Runner) startFaults(ctx context.Context, cell int, start time.Time) {
	c := r.cells[cell]
	measured := start.Add(c.cell.Warmup)
	for _, ft := range r.sc.Faults.Schedule {
		c.faults.wg.Add(1)
		go func() {
			defer c.faults.wg.Done()
			r.runFault(ctx, c, measured, ft)
		}()
	}
}

// waitFaults waits until every cell's faults are over (a node being started again), at
// most faultCommandTimeout: Close leaves the cluster as the run found it.
func (r *Runner) waitFaults() {
	done := make(chan struct{})
	go func() {
		for _, c := range r.cells {
			c.faults.wg.Wait()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(faultCommandTimeout):
	}
}

func (r *Runner) runFault(ctx context.Context, c *cellState, measured time.Time, ft scenario.Fault) {
	if !sleepUntil(ctx, measured.Add(ft.At)) {
		return
	}
	node, err := r.resolveNode(ctx, ft.Node)
	ev := r.execFault(ctx, "kill", r.sc.Faults.Kill, ft.Node, node, measured, err)
	c.faults.record(ev)
	if ft.RestartAfter <= 0 || ev.Node == "" {
		return
	}
	if !sleepUntil(ctx, ev.At.Add(ft.RestartAfter)) {
		// Stopped: still bring the node back, so the cluster is left as it was found.
		ctx = context.Background()
	}
	c.faults.record(r.execFault(ctx, "start", r.sc.Faults.Start, ft.Node, node, measured, nil))
}

// resolveNode turns leader/follower into a node name by asking the driver; names pass as is.
func (r *Runner) resolveNode(ctx context.Context, asked string) (string, error) {
	if asked != scenario.FaultLeader && asked != scenario.FaultFollower {
		return asked, nil
	}
	r.mu.Lock()
	drv := r.drv
	r.mu.Unlock()
	topo, ok := drv.(driver.Topology)
	if !ok {
		return "", fmt.Errorf("the %s driver cannot tell where the destination lives", r.sc.Broker.Type)
	}
	pctx, cancel := context.WithTimeout(ctx, placementTimeout)
	defer cancel()
	leader, followers, err := topo.Placement(pctx)
	return placedNode(asked, leader, followers, err)
}

// placedNode picks the asked node from the broker's answer.
func placedNode(asked, leader string, followers []string, err error) (string, error) {
	switch {
	case err != nil:
		return "", fmt.Errorf("asking for the destination's %s: %w", asked, err)
	case asked == scenario.FaultLeader && leader == "":
		return "", errors.New("the destination has no leader right now")
	case asked == scenario.FaultFollower && len(followers) == 0:
		return "", errors.New("the destination has no follower (replication factor 1?)")
	}
	node := leader
	if asked == scenario.FaultFollower {
		node = followers[0]
	}
	// The name goes into a command's arguments: checked like a scenario's node (not quoted
	// back: it came from the network).
	if !scenario.ValidNodeName(node) {
		return "", fmt.Errorf("the broker named the destination's %s with a name that cannot go into a command (letters, digits and . _ @ : + - only, not starting with -)", asked)
	}
	return node, nil
}

// execFault runs one kill or start command for node (already resolved; resolveErr when it
// could not be).
func (r *Runner) execFault(ctx context.Context, action string, tmpl []string, asked, node string, measured time.Time, resolveErr error) FaultEvent {
	now := time.Now()
	ev := FaultEvent{Action: action, Asked: asked, Node: node, At: now, Offset: now.Sub(measured)}
	if resolveErr != nil {
		ev.Err = resolveErr.Error()
		return ev
	}
	args := expandCommand(tmpl, node)
	ev.Command = strings.Join(args, " ")
	if !r.faultCommands && !scenario.FaultCommandsAllowed(os.Getenv) {
		// The load refuses such a scenario first; this lock sits where a command starts.
		ev.Err = "not run: fault commands run only with " + scenario.FaultCommandsOptIn
		return ev
	}
	cctx, cancel := context.WithTimeout(ctx, faultCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, args[0], args[1:]...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	ev.Took = time.Since(now)
	if err != nil {
		msg := strings.TrimSpace(out.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:] // the last line says why
		}
		ev.Err = strings.TrimSpace(fmt.Sprintf("%s: %v %s", ev.Command, err, msg))
	}
	return ev
}

var lastDigits = regexp.MustCompile(`(\d+)\D*$`)

// nodeNumber is the last run of digits of a node's name before any "@host": n2, rabbit-2@h
// and Kafka's broker id 2 are node 2; "" when the name has none.
func nodeNumber(node string) string {
	name, _, _ := strings.Cut(node, "@")
	if m := lastDigits.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

func expandCommand(tmpl []string, node string) []string {
	rep := strings.NewReplacer("{n}", nodeNumber(node), "{node}", node)
	out := make([]string, len(tmpl))
	for i, a := range tmpl {
		out[i] = rep.Replace(a)
	}
	return out
}

// sleepUntil waits until t; false if ctx ended first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
