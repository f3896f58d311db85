package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/compare"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Compare is `k6 x mqbench compare`: overlay runs (compare.html, compare.md), or gate
// a candidate run against a baseline run.
func Compare(gs *state.GlobalState) *cobra.Command {
	var baseline, candidate []string
	var tolerance, metrics, out string
	var alpha, maxSteal float64
	cmd := &cobra.Command{
		Use:   "compare [RUN_DIR...] | --baseline DIR --candidate DIR [--tolerance 10%] [--metric LIST]",
		Short: "Compare finished runs: overlaid percentile charts and a table, or a baseline regression gate (exit 1 on regression)",
		Long: `Compare finished runs from their results folders (summary.json and hgrm/*.hgrm).

  compare DIR...       overlay the runs (or brokers) on one percentile chart per cell and
                       write compare.html and compare.md (the table is also printed)
  compare --baseline DIR --candidate DIR [--tolerance 10%] [--metric e2e.p99,receiver_rate]
                       exit 1 when a metric of any cell regressed beyond the tolerance, naming
                       the cell and by how much (latency up or throughput down is worse)

--tolerance is a percentage with its sign, 0% to 100% (10%, 2.5%): a bare number such as 0.1
is refused, since it reads as 10% to some and 0.1% to others.

Output goes to --out, else a new folder <results>/compare/<UTC timestamp> (-2, -3 … added when
compares start in the same second: one never overwrites another).

The gate prints a warning (the exit code stays the figures') when baseline and candidate were
made by different mqbench versions or from different scenario files (summary.json's mqbench
and scenario_sha256), or when a summary.json is too old to say.

A DIR is a run's folder (results/<scenario>/<timestamp>) or results/<scenario> for its latest
run. Cells are matched by id. Metrics: KIND.STAT with KIND publish, e2e, e2e_intended or
schedule_lag and STAT p50, p90, p99, p99.9 … p99.9999 (any pNN, read off the .hgrm), max,
mean; or a rate: sender_rate, ack_rate, receiver_rate, sender_bytes_per_s, receiver_bytes_per_s.
Exit codes: 0 no regression, 1 regression, 2 bad arguments or unreadable results.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			gate := len(baseline) > 0 || len(candidate) > 0
			switch {
			case gate && (len(baseline) == 0 || len(candidate) == 0):
				return exitcode.New(exitcode.Usage, "mqbench compare: --baseline and --candidate go together")
			case gate && len(args) > 0:
				return exitcode.New(exitcode.Usage, "mqbench compare: give either run folders or --baseline/--candidate, not both")
			case !gate && len(args) == 0:
				return exitcode.New(exitcode.Usage, "mqbench compare: name the run folders to compare, or --baseline DIR --candidate DIR (see --help)")
			}
			tol, err := compare.ParseTolerance(tolerance)
			if err != nil {
				return exitcode.New(exitcode.Usage, "mqbench compare: --tolerance: %v", err)
			}
			ms, err := compare.ParseMetrics(metrics)
			if err != nil {
				return exitcode.New(exitcode.Usage, "mqbench compare: %v", err)
			}
			if alpha <= 0 || alpha >= 1 {
				return exitcode.New(exitcode.Usage, "mqbench compare: --alpha must lie between 0 and 1")
			}
			if maxSteal < 0 || maxSteal > 100 {
				return exitcode.New(exitcode.Usage, "mqbench compare: --max-steal is a percentage of the CPU, 0 to 100")
			}
			if gate {
				args = append(append([]string{}, baseline...), candidate...)
			}
			runs, err := results.LoadAll(args)
			if err != nil {
				return exitcode.New(exitcode.Usage, "mqbench compare: %v", err)
			}
			if out == "" {
				// A folder of its own, made exclusively: two compares in one second used to
				// write into the same one, the second's report over the first's.
				if out, err = results.NewRunDir(runenv.ScenarioDir(runenv.Root(os.Getenv), "compare"), compareNow()); err != nil {
					return exitcode.New(exitcode.Usage, "mqbench compare: output folder: %v", err)
				}
			}
			var findings []compare.Finding
			bases, cands := runs[:len(baseline)], runs[len(baseline):]
			if gate {
				findings = compare.GateRuns(bases, cands, ms, tol, alpha, maxSteal)
			}
			if err := writeComparison(out, runs, findings, tol); err != nil {
				return exitcode.New(exitcode.Usage, "mqbench compare: %v", err)
			}
			if !gate {
				fmt.Fprint(gs.Stdout, compare.Markdown(runs))
				fmt.Fprintf(gs.Stdout, "\nwrote %s and %s\n", filepath.Join(out, "compare.html"), filepath.Join(out, "compare.md"))
				return nil
			}
			if printGate(gs, bases, cands, ms, findings, tol, alpha, maxSteal, out) {
				return &exitcode.Error{Code: exitcode.Regressed} // printGate named each regression
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&baseline, "baseline", nil, "baseline run folder (the known-good run); repeat it for repeated runs")
	f.StringArrayVar(&candidate, "candidate", nil, "candidate run folder (the run under test); repeat it for repeated runs")
	f.Float64Var(&alpha, "alpha", compare.Alpha, "significance of the rank test a change must pass to count as a regression (beside the tolerance)")
	f.Float64Var(&maxSteal, "max-steal", compare.MaxSteal, "leave out of the rank test the seconds in which the host (a VM's hypervisor) stole more than this percentage of the CPU")
	f.StringVar(&tolerance, "tolerance", "10%", "how much worse a metric may get before the gate fails: a percentage with its sign, 0% to 100%")
	f.StringVar(&metrics, "metric", compare.DefaultMetrics, "comma-separated metrics the gate checks")
	f.StringVar(&out, "out", "", "folder for compare.html and compare.md (default a new <results>/compare/<UTC timestamp>)")
	return cmd
}

// compareNow names the default output folder; a test sets it to make two compares share a second.
var compareNow = time.Now

func writeComparison(out string, runs []*results.Run, findings []compare.Finding, tol float64) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	md := compare.Markdown(runs)
	if findings != nil {
		var b strings.Builder
		b.WriteString("\n## regression gate\n\n```\n")
		for _, f := range findings {
			b.WriteString(f.Line(tol) + "\n")
		}
		b.WriteString("```\n")
		md += b.String()
	}
	if err := os.WriteFile(filepath.Join(out, "compare.md"), []byte(md), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "compare.html"), []byte(compare.HTML(runs, findings, tol)), 0o644)
}

// printGate prints every check and the verdict; it reports whether the gate failed.
func printGate(gs *state.GlobalState, bases, cands []*results.Run, ms []compare.Metric, fs []compare.Finding, tol, alpha, maxSteal float64, out string) bool {
	base, cand := bases[0], cands[0]
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = m.Name
	}
	w := gs.Stdout
	fmt.Fprintf(w, "mqbench compare: baseline %s (%s, run %s) vs candidate %s (%s, run %s)\n", base.Dir, base.Scenario, base.RunID, cand.Dir, cand.Scenario, cand.RunID)
	if len(bases) > 1 || len(cands) > 1 {
		fmt.Fprintf(w, "repeated runs: %d baseline, %d candidate (figures are their means; the rank test pools their seconds)\n", len(bases), len(cands))
	}
	fmt.Fprintf(w, "tolerance %s, rank test at p < %s over the seconds in which the host stole at most %s%% of the CPU; metrics %s\n",
		compare.Percent(tol), strconv.FormatFloat(alpha, 'g', -1, 64), strconv.FormatFloat(maxSteal, 'g', -1, 64), strings.Join(names, ", "))
	if base.Scenario != cand.Scenario {
		fmt.Fprintf(w, "note: different scenarios (%s, %s); cells are matched by id\n", base.Scenario, cand.Scenario)
	}
	// Another mqbench build or scenario file: a warning, the verdict stays the figures'.
	for _, l := range compare.Provenance(bases, cands) {
		fmt.Fprintln(w, l)
	}
	for _, f := range fs {
		fmt.Fprintln(w, f.Line(tol))
	}
	bad := compare.Regressions(fs)
	fmt.Fprintf(w, "details: %s\n", filepath.Join(out, "compare.html"))
	if len(bad) == 0 {
		fmt.Fprintf(w, "result: PASS, no regression beyond the tolerance and the noise (%d checks)\n", len(fs))
		return false
	}
	var which []string
	for _, f := range bad {
		which = append(which, strings.TrimSpace(strings.TrimPrefix(f.Line(tol), "FAIL")))
	}
	fmt.Fprintf(w, "result: FAIL, %d regression(s):\n", len(bad))
	for _, l := range which {
		fmt.Fprintf(w, "  %s\n", l)
	}
	return true
}
