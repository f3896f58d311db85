package cmd

import (
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/figure"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Figure is `k6 x mqbench figure`: figures of a run's cell from its summary.json, for scripts.
func Figure(gs *state.GlobalState) *cobra.Command {
	var cell string
	c := &cobra.Command{
		Use:   "figure [--cell ID] SUMMARY FIGURE...",
		Short: "Print figures of a run's cell from its summary.json, space-separated (for scripts)",
		Long: `Print figures of a run's cell from its summary.json on one line, space-separated: counts
as integers, rates (msg/s) and latencies (µs) as decimals; "complete" is 1 when the run's
every cell ran to its end, "mqbench" the version that wrote it, "runner_sender_rates" each
runner's sender rate in the cell (a merged run's; several words: name it last). The first
cell unless --cell names one.

Figures: complete, mqbench, runner_sender_rates, ` + figure.Names() + `.

Exit codes: 0 printed, 2 bad arguments, an unreadable summary or an unknown figure or cell.`,
		Args: cobra.MinimumNArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			s, err := figure.Read(args[0])
			if err == nil {
				var line string
				if line, err = figure.Of(s, cell, args[1:]); err == nil {
					fmt.Fprintln(c.OutOrStdout(), line)
					return nil
				}
			}
			return exitcode.New(exitcode.Usage, "mqbench figure: %v", err)
		},
	}
	c.Flags().StringVar(&cell, "cell", "", "the cell's id (default: the first cell)")
	if gs != nil && gs.Stdout != nil {
		c.SetOut(gs.Stdout)
	}
	return c
}
