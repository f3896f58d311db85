package mqbench

import (
	"fmt"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/cmd"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
	"go.k6.io/k6/v2/subcommand"
)

func init() {
	cmd.QuietExtensionResolution(os.Args)
	subcommand.RegisterExtension("mqbench", newCommand)
}

// newCommand is `k6 x mqbench`: tools that need no k6 run.
func newCommand(gs *state.GlobalState) *cobra.Command {
	root := &cobra.Command{Use: "mqbench", Short: "mqbench scenario tools"}
	root.AddCommand(&cobra.Command{
		Use:   "validate FILE...",
		Short: "Check scenario files without running them (exit 111 if any is invalid)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, f := range args {
				sc, err := scenario.Load(f)
				if err != nil {
					bad++
					fmt.Fprintln(gs.Stderr, err)
					continue
				}
				fmt.Fprintf(gs.Stdout, "ok  %s (%s, %d cells)\n", f, sc.Broker.Type, len(sc.Cells))
			}
			if bad > 0 {
				fatal(ExitInvalidScenario, fmt.Sprintf("%d of %d scenario files invalid", bad, len(args)))
			}
			return nil
		},
	})
	root.AddCommand(compareCommand(gs)) // compare.go
	root.AddCommand(explainCommand(gs)) // explain.go
	root.AddCommand(mergeCommand(gs))   // mergecmd.go
	root.AddCommand(k8sCommand(gs))     // k8scmd.go
	root.AddCommand(cmd.Run(gs))        // internal/cmd/run.go
	root.AddCommand(cmd.Search(gs))     // internal/cmd/search.go
	return root
}
