package cmd

import (
	"fmt"
	"os"
	"slices"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/k8s"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Validate is `k6 x mqbench validate FILE...`: every problem of every file, nothing connects.
func Validate(gs *state.GlobalState) *cobra.Command {
	var noEnv, listEnv bool
	c := &cobra.Command{
		Use:   "validate [--no-env] [--list-env] FILE...",
		Short: "Check scenario files without running them (exit 111 if any is invalid)",
		Long: `Check scenario files without running them (exit 111 if any is invalid); nothing connects.

--no-env checks everything but the variables' values, for a job without the run's
secrets: an unset ${NAME} is not an error and the field it fills is not judged (a written
default, ${NAME:-default}, still is).

--list-env prints, one a line and nothing else, the environment variables the files read
(every ${NAME} and every *_env option), checked as with --no-env: what a job must pass into
a container (docker run -e NAME) for the run to see them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			bad := 0
			var names []string
			for _, f := range args {
				sc, err := scenario.LoadVars(f, scenario.Vars{NoEnv: noEnv || listEnv})
				if err != nil {
					bad++
					fmt.Fprintln(gs.Stderr, err)
					continue
				}
				if listEnv {
					raw, err := os.ReadFile(f) // valid, so readable and under the size cap
					if err != nil {
						return exitcode.New(exitcode.Usage, "%s: %v", f, err)
					}
					names = append(names, k8s.ScenarioRefs(raw).Env...)
					continue
				}
				cells := "cells"
				if len(sc.Cells) == 1 {
					cells = "cell"
				}
				// A reviewer sees the commands a run would start (only with the opt-in).
				runs := ""
				if cmds := sc.Faults.FaultCommands(); cmds != "" {
					runs = "; runs commands with --allow-fault-commands: " + cmds
				}
				fmt.Fprintf(gs.Stdout, "ok  %s (%s, %d %s%s)\n", f, sc.Broker.Type, len(sc.Cells), cells, runs)
			}
			slices.Sort(names)
			for _, n := range slices.Compact(names) {
				fmt.Fprintln(gs.Stdout, n)
			}
			if bad > 0 {
				return exitcode.New(exitcode.InvalidScenario, "%d of %d scenario files invalid", bad, len(args))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&listEnv, "list-env", false, "print the environment variables the files read, one a line (implies --no-env)")
	c.Flags().BoolVar(&noEnv, "no-env", false, "check without the environment's values: an unset ${NAME} is no error")
	return c
}
