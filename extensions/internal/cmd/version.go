package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/version"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Version is `k6 x mqbench version [--json]`: the versions a run's summary.json records, for
// a pipeline to log or to pick a baseline by. `k6 x mqbench --version` prints the same line.
func Version(gs *state.GlobalState) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version [--json]",
		Short: "Print the versions of mqbench, k6 and Go in this binary",
		Long: `Print the versions of mqbench, k6 and Go in this binary: the ones every run records in
summary.json (mqbench, k6, go). mqbench's version is the one the build stamped (the project's
builds stamp git describe), else its Go module version, else devel+<commit> for a build from
a clone, else devel.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			i := version.Get()
			if !asJSON {
				fmt.Fprintln(cmd.OutOrStdout(), i.String())
				return nil
			}
			b, _ := json.Marshal(i) // strings only: cannot fail
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {\"mqbench\", \"k6\", \"go\"} as JSON")
	if gs != nil && gs.Stdout != nil {
		cmd.SetOut(gs.Stdout)
	}
	return cmd
}
