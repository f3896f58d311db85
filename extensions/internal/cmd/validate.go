package cmd

import (
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Validate is `k6 x mqbench validate FILE...`: every problem of every file, nothing connects.
func Validate(gs *state.GlobalState) *cobra.Command {
	var noEnv bool
	c := &cobra.Command{
		Use:   "validate [--no-env] FILE...",
		Short: "Check scenario files without running them (exit 111 if any is invalid)",
		Long: `Check scenario files without running them (exit 111 if any is invalid); nothing connects.

--no-env checks everything but the variables' values, for a job without the run's
secrets: an unset ${NAME} is not an error and the field it fills is not judged (a written
default, ${NAME:-default}, still is).`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			bad := 0
			for _, f := range args {
				sc, err := scenario.LoadVars(f, scenario.Vars{NoEnv: noEnv})
				if err != nil {
					bad++
					fmt.Fprintln(gs.Stderr, err)
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
			if bad > 0 {
				return exitcode.New(exitcode.InvalidScenario, "%d of %d scenario files invalid", bad, len(args))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&noEnv, "no-env", false, "check without the environment's values: an unset ${NAME} is no error")
	return c
}
