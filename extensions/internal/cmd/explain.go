package cmd

import (
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/reference"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// Explain is `k6 x mqbench explain [BROKER]`: the option reference of docs/drivers.md
// in the terminal, so a scenario can be written without the repository at hand.
func Explain(gs *state.GlobalState) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain [BROKER]",
		Short: "Print a broker's options (key, type, default, allowed values, modes) or, without a broker, the brokers and scenario keys",
		Long: `Print the option reference of one broker driver: every key of the scenario's
broker.<type> block with its type, default, allowed values, the modes it applies to and what
it does, then an example scenario. Without a broker: every broker on one line, and the
top-level keys of a scenario file. The same reference is docs/drivers.md.
An unknown broker exits 111 (invalid scenario).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return reference.WriteIndex(cmd.OutOrStdout())
			}
			b, err := reference.Lookup(args[0])
			if err != nil {
				return exitcode.New(exitcode.InvalidScenario, "mqbench explain: %v", err)
			}
			return reference.WriteBroker(cmd.OutOrStdout(), b)
		},
	}
	// k6's own writer (not os.Stdout) unless a caller, such as a test, sets another.
	if gs != nil && gs.Stdout != nil {
		cmd.SetOut(gs.Stdout)
	}
	return cmd
}
