package cmd

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/merge"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Merge is `k6 x mqbench merge`: one verdict for a distributed run from its runners'
// shards.
func Merge(gs *state.GlobalState) *cobra.Command {
	var maxSkew time.Duration
	cmd := &cobra.Command{
		Use:   "merge DIR [--max-skew 5s]",
		Short: "Merge a distributed run's shards into its results and judge its thresholds (exit 0, 99, or 114 for shards that do not make one run)",
		Long: `Merge the shards of a distributed run (N k6 runners, each running one execution
segment and writing <results>/<scenario>/<run id>/runner-<i>-of-<n>/) into the run's results:
summary.json (with runners[]), summary.txt, report.html, junit.xml, hgrm/ and hdr/ in the run's
folder. The scenario's thresholds are judged on the merged data: distributions merged exactly
from the runners' HdrHistograms, counters and ledgers summed.

DIR is the run's folder, or <results>/<scenario> for its latest distributed run.

The shards must make one run: runners 1..N each once, execution segments tiling 0..1, the
same scenario file, run id, k6 and mqbench versions, every runner complete, each cell started
by all runners within --max-skew, and histograms that merge without losing a value.

Exit codes: 0 every threshold holds, 99 a threshold failed, 114 the shards do not make one
run (one line per problem, naming the shard), 2 bad arguments.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return exitcode.New(exitcode.Usage, "mqbench merge: name one run folder (<results>/<scenario>/<run id>), see --help")
			}
			if maxSkew < 0 {
				return exitcode.New(exitcode.Usage, "mqbench merge: --max-skew must not be negative")
			}
			if code, msg := mergeRun(gs.Stdout, args[0], maxSkew); code != 0 {
				return &exitcode.Error{Code: code, Msg: msg}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&maxSkew, "max-skew", merge.DefaultMaxSkew, "how far apart the runners may start a cell")
	return cmd
}

// mergeRun merges the run named by dir and writes its results; it returns the exit code and,
// for a non-zero one, the message for stderr. What a merge prints goes to w.
func mergeRun(w io.Writer, dir string, maxSkew time.Duration) (int, string) {
	runDir, shards, err := merge.Load(dir)
	if err != nil {
		return exitcode.Usage, "mqbench merge: " + err.Error()
	}
	invalid := func(problems ...string) (int, string) {
		for i, p := range problems {
			problems[i] = "mqbench merge: invalid distributed run " + runDir + ": " + textclean.Clean(p)
		}
		return exitcode.InvalidMerge, strings.Join(problems, "\n")
	}
	if err := merge.Check(shards, maxSkew); err != nil {
		if inv, ok := err.(*merge.Invalid); ok {
			return invalid(inv.Problems...)
		}
		return invalid(err.Error())
	}
	sum, hists := merge.Merge(shards)
	sc, err := merge.Scenario(shards) // Check parsed it already: this cannot fail
	if err != nil {
		return invalid(fmt.Sprintf("%s: the scenario in its shard.json does not parse here: %v", shards[0].Name, err))
	}
	// runners 0: the scenario's thresholds as a single run has them (a runner's own options
	// turn dropped_iterations into a count that cannot fail; the run must not).
	p := plan.Build(sc, sum.RunID, 0)
	if err := merge.Judge(&sum, hists, p.Verdicts, p.K6Judged()); err != nil {
		return invalid(err.Error())
	}
	text, err := report.Write(runDir, &sum, hists)
	fmt.Fprint(w, text)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mqbench merge: results not fully written: "+err.Error())
	}
	failed := 0
	for _, t := range sum.Thresholds {
		if !t.OK {
			failed++
		}
	}
	for _, r := range sum.Runners {
		var cells []string
		for _, c := range r.Cells {
			cells = append(cells, fmt.Sprintf("%s sent %d received %d dropped %d", c.ID, c.Sent, c.Received, c.DroppedIterations))
		}
		fmt.Fprintln(w, textclean.Clean(fmt.Sprintf("runner %d (segment %s, host %s): %s", r.Runner, r.Segment, r.Host, strings.Join(cells, "; "))))
	}
	fmt.Fprintf(w, "mqbench merge: %d runners merged into %s\n", len(shards), runDir)
	if failed == 0 {
		return 0, ""
	}
	// As run says it: drops alone are the generators', not the broker's (exit 117).
	lines := report.Breaches(&sum)
	if results.GeneratorOnly(&sum) {
		return exitcode.GeneratorBehind, fmt.Sprintf("mqbench merge: %s:\n  %s", results.GeneratorVerdict, strings.Join(lines, "\n  "))
	}
	return exitcode.ThresholdsFailed, fmt.Sprintf("mqbench merge: %d of %d thresholds failed on the merged run:\n  %s", failed, len(sum.Thresholds), strings.Join(lines, "\n  "))
}
