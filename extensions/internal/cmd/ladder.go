package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/ladder"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

const ladderLong = `Climb a ladder of fixed rates and report the highest each rule holds: at every rung, one
` + "`k6 x mqbench run`" + ` of a one-cell scenario (--name-RATE.yaml in --dir, its log beside it, its
results under --dir/results), then the peer command if one is given, so both see the same
machine noise. A rule stops at its first rate not held (a pass above a failure would be luck);
the climb ends when every rule has stopped or at the top rung (then the figure means "at least").
At a rate above --per-batch msg/s, an iteration sends rate / --per-batch messages (--batch: a
fixed number at every rate).

Rules (--rule, repeatable, in the order reported):
%s
Columns of mqbench's part of a row (--line, in order): %s.

A peer (after --) is another tool measured at the same rungs: it runs as PEER… RATE BATCH ON…
(ON: per peer rule, 1 still climbing, 0 stopped) and its last line on stdout is its verdicts
(0 or 1 per rule, space-separated), a tab, and its column of the row.

Output: with --row FORMAT (a printf format taking rate, batch and one column per probe), a row
per rung; then one line "#ladder<tab>best<tab>RATES<tab>batch<tab>BATCHES" (per rule, mqbench's
then the peer's: the highest rate held, 0 when none, and its batch, "-" when none).

With --write NAME, nothing runs: the scenario of the one rate given is written as
--dir/NAME.yaml and its path printed, for a run of its own.

Exit codes: 0 the ladder ran (whatever held), 118 a rung wrote no complete results or the peer
command failed, 2 bad arguments.`

// Ladder is `k6 x mqbench ladder`: the rate ladder of the bench sections.
func Ladder(gs *state.GlobalState) *cobra.Command {
	var (
		broker, row, write  string
		peerRules, perBatch int
		batch               int
	)
	m := &ladder.Mqbench{}
	rules := ""
	for _, n := range []string{"held", "on-time", "acked", "rates", "average"} {
		rules += fmt.Sprintf("  %-8s %s\n", n, ladder.Rules[n].Doc)
	}
	c := &cobra.Command{
		Use:   "ladder --name NAME --broker YAML --dir DIR [flags] RATE... [-- PEER...]",
		Short: "Find the highest fixed rate held on a ladder of rates, beside a peer tool climbing the same rungs",
		Long:  fmt.Sprintf(ladderLong, rules, ladder.Names(ladder.Columns)),
		RunE: func(c *cobra.Command, args []string) error {
			rates, peer := args, []string(nil)
			if at := c.ArgsLenAtDash(); at >= 0 {
				rates, peer = args[:at], args[at:]
			}
			if write != "" && m.Name == "" {
				m.Name = write
			}
			probes, nums, err := ladderSetup(m, broker, rates, peer, peerRules, perBatch)
			if err != nil {
				return exitcode.New(exitcode.Usage, "mqbench ladder: %v", err)
			}
			if batch < 0 {
				return exitcode.New(exitcode.Usage, "mqbench ladder: --batch %d: give a positive number", batch)
			}
			batchOf := func(rate int) int { return ladder.Batch(rate, perBatch) }
			if batch > 0 {
				batchOf = func(int) int { return batch }
			}
			if write != "" {
				return ladderWrite(c, m, write, nums, batchOf)
			}
			best, err := ladder.Climb(nums, batchOf, probes, row, c.OutOrStdout())
			if err != nil {
				return exitcode.New(exitcode.StepFailed, "mqbench ladder: %v", err)
			}
			fmt.Fprintln(c.OutOrStdout(), ladder.ResultLine(best))
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&m.Name, "name", "", "rung scenarios are NAME-RATE (required)")
	f.StringVar(&broker, "broker", "", `the broker block, YAML, e.g. '{ type: nats, url: "nats://127.0.0.1:4222" }' (required)`)
	f.StringVar(&m.Dir, "dir", "", "folder of the rung scenarios, their logs and results/ (required)")
	f.StringVar(&m.Size, "size", "1KB", "message size")
	f.DurationVar(&m.Duration, "duration", time.Minute, "each rung's measured time")
	f.DurationVar(&m.Warmup, "warmup", 2*time.Second, "each rung's warm-up")
	f.DurationVar(&m.Drain, "drain", 2*time.Second, "each rung's drain")
	f.IntVar(&m.Producers, "producers", 1, "producer connections")
	f.IntVar(&m.Consumers, "consumers", 1, "consumer connections (0: producers only)")
	f.StringVar(&m.Pacing, "pacing", "precise", "pacing: precise or timer")
	f.IntVar(&perBatch, "per-batch", 2000, "above this rate an iteration sends rate / per-batch messages")
	f.StringSliceVar(&m.Judge, "rule", []string{"held"}, "rules judging mqbench's rungs, in order")
	f.StringSliceVar(&m.Columns, "line", []string{"sent/s", "recv/s", "dropped", "lost"}, "columns of mqbench's part of a row")
	f.DurationVar(&m.LateMax, "late-max", 100*time.Millisecond, "the on-time rule's bound on the schedule's lag")
	f.BoolVar(&m.LateVUs, "late-vus", false, "size the producer VU pool for --late-max of iterations (k6's default covers 50 ms)")
	f.StringVar(&row, "row", "", "printf format of a row: rate, batch, a column per probe (empty: no rows)")
	f.IntVar(&peerRules, "peer-rules", 1, "how many rules the peer judges by")
	f.StringVar(&write, "write", "", "write the one rate's scenario as --dir/NAME.yaml, print its path and run nothing (a run of its own)")
	f.IntVar(&batch, "batch", 0, "messages an iteration at every rate (default: rate / --per-batch)")
	if gs != nil && gs.Stdout != nil {
		c.SetOut(gs.Stdout)
	}
	return c
}

// ladderWrite writes the scenario of the one rate given, named name, and prints its path.
func ladderWrite(c *cobra.Command, m *ladder.Mqbench, name string, rates []int, batchOf func(int) int) error {
	if len(rates) != 1 {
		return exitcode.New(exitcode.Usage, "mqbench ladder: --write takes one rate, got %d", len(rates))
	}
	file := filepath.Join(m.Dir, name+".yaml")
	if _, err := childrun.WriteScenario(file, "Generated by k6 x mqbench ladder --write.", m.Named(name, rates[0], batchOf(rates[0]))); err != nil {
		return exitcode.New(exitcode.Usage, "mqbench ladder: %s: %v", file, err)
	}
	fmt.Fprintln(c.OutOrStdout(), file)
	return nil
}

// ladderSetup checks the command line and makes the probes and the rates.
func ladderSetup(m *ladder.Mqbench, broker string, rates, peer []string, peerRules, perBatch int) ([]ladder.Probe, []int, error) {
	switch {
	case m.Name == "" || broker == "" || m.Dir == "":
		return nil, nil, fmt.Errorf("--name, --broker and --dir are required (see --help)")
	case len(rates) == 0:
		return nil, nil, fmt.Errorf("name the ladder's rates: k6 x mqbench ladder [flags] RATE... (see --help)")
	case perBatch < 1:
		return nil, nil, fmt.Errorf("--per-batch %d: give a positive number", perBatch)
	case len(m.Judge) == 0:
		return nil, nil, fmt.Errorf("--rule: give at least one of %s", ladder.Names(ladder.Rules))
	case peer != nil && (len(peer) == 0 || peerRules < 1):
		return nil, nil, fmt.Errorf("after --, name the peer command; --peer-rules must be positive")
	}
	for _, r := range m.Judge {
		if _, ok := ladder.Rules[r]; !ok {
			return nil, nil, fmt.Errorf("--rule %q: give one of %s", r, ladder.Names(ladder.Rules))
		}
	}
	for _, col := range m.Columns {
		if _, ok := ladder.Columns[col]; !ok {
			return nil, nil, fmt.Errorf("--line %q: give columns among %s", col, ladder.Names(ladder.Columns))
		}
	}
	nums := make([]int, len(rates))
	for i, r := range rates {
		n, err := strconv.Atoi(r)
		if err != nil || n < 1 {
			return nil, nil, fmt.Errorf("rate %q: give whole messages per second, e.g. 5000", r)
		}
		nums[i] = n
	}
	var err error
	if m.Broker, err = childrun.BrokerNode("--broker", broker); err != nil {
		return nil, nil, err
	}
	if m.K6, err = os.Executable(); err != nil {
		return nil, nil, fmt.Errorf("cannot find this k6 binary: %v", err)
	}
	if err := os.MkdirAll(m.Dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("--dir: %v", err)
	}
	m.Env = os.Environ()
	probes := []ladder.Probe{m}
	if peer != nil {
		probes = append(probes, &ladder.Peer{Command: peer, N: peerRules})
	}
	return probes, nums, nil
}
