package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/figure"
	"github.com/mqbench/xk6-mqbench/internal/reproduce"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

const reproduceLong = `A study scenario's run and figures as make reproduce takes them (docs/reproductions.md), one
action at a time:

  run SCENARIO     run a study scenario and print the path of what it measured: its
                   summary.json (search.json for a search). --scale below 1 shortens it for a
                   smoke run: message counts (at least 100), durations (3 s), warm-ups (1 s),
                   drains (10 s), a counted cell's time limit (20 s), a search's step and
                   confirm (3 s). A scenario of several cells of which one counts messages runs
                   one cell at a time and the summaries are joined into one (cells c1, c2, …):
                   k6 fixes every cell's start in advance, so a counted cell done in seconds
                   would otherwise wait out its whole time limit. Files and logs go to --dir.
  rows KIND SUMMARY  a Markdown row per cell: latency (size, rate, e2e p50 / p99 / p99.99,
                   mean ± stddev in ms, held) or rate (sent, sender / receiver / e2e msg/s,
                   publish and e2e p99 in ms, lost); rows closed SUMMARY NODES: sent, the
                   three rates and each minute's e2e p95 in ms, beside the nodes given
  cell SUMMARY ID FIELD  one figure of a cell (k6 x mqbench figure --help lists them)

Exit codes: 0 done (a failed threshold is a result), 118 a run wrote no results, 2 bad
arguments or an unreadable file.`

// Reproduce is `k6 x mqbench reproduce`: the study runs of make reproduce.
func Reproduce(gs *state.GlobalState) *cobra.Command {
	st := reproduce.Study{}
	c := &cobra.Command{
		Use:   "reproduce run SCENARIO | rows latency|rate SUMMARY | rows closed SUMMARY NODES | cell SUMMARY ID FIELD",
		Short: "Run a published study's scenario, scaled down on request, and print its figures as Markdown rows",
		Long:  reproduceLong,
		RunE: func(c *cobra.Command, args []string) error {
			out, err := reproduceAction(st, args)
			if err != nil {
				if exitcode.Of(err) > 0 {
					return err
				}
				return exitcode.New(exitcode.Usage, "mqbench reproduce: %v", err)
			}
			fmt.Fprint(c.OutOrStdout(), out)
			return nil
		},
	}
	f := c.Flags()
	f.Float64Var(&st.Scale, "scale", 1, "a fraction in (0, 1] for a short smoke run")
	f.StringArrayVar(&st.Subs, "sub", nil, "FROM=TO: replace FROM by TO in the scenario's text (a private broker's url)")
	f.StringVar(&st.Dir, "dir", filepath.Join(".cache", "reproduce"), "folder of the scaled scenarios, logs and results")
	if gs != nil && gs.Stdout != nil {
		c.SetOut(gs.Stdout)
	}
	return c
}

// reproduceAction does what args say and returns what to print.
func reproduceAction(st reproduce.Study, args []string) (string, error) {
	want := map[string]int{"run": 2, "rows": 3, "cell": 4}
	if len(args) == 4 && args[0] == "rows" && args[1] == "closed" {
		want["rows"] = 4 // rows closed SUMMARY NODES
	}
	if len(args) == 0 || want[args[0]] != len(args) {
		return "", fmt.Errorf("give run SCENARIO, rows latency|rate SUMMARY, rows closed SUMMARY NODES or cell SUMMARY ID FIELD (see --help), got %q", args)
	}
	switch args[0] {
	case "run":
		if !(st.Scale > 0 && st.Scale <= 1) {
			return "", fmt.Errorf("--scale %g: give a fraction in (0, 1]", st.Scale)
		}
		exe, err := os.Executable()
		if err != nil {
			return "", err
		}
		st.K6 = exe
		files, err := st.Files(args[1])
		if err != nil {
			return "", err
		}
		out, err := st.Run(strings.TrimSuffix(filepath.Base(args[1]), filepath.Ext(args[1])), files)
		return out + "\n", err
	case "rows":
		s, err := figure.Read(args[2])
		switch {
		case err != nil:
			return "", err
		case args[1] == "latency":
			return reproduce.LatencyRows(s), nil
		case args[1] == "rate":
			return reproduce.RateRows(s), nil
		case args[1] == "closed" && len(args) == 4:
			return reproduce.ClosedRows(s, args[3]), nil
		}
		return "", fmt.Errorf("rows %q: give latency, rate or closed", args[1])
	default:
		s, err := figure.Read(args[1])
		if err != nil {
			return "", err
		}
		v, err := figure.Of(s, args[2], args[3:])
		return v + "\n", err
	}
}
