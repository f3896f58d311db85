package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// k6Stub is a k6 root holding `x mqbench` and a stand-in `run` with the k6 run flags mqbench
// run sets (k6's own run command is internal to k6). The stand-in calls load with what the JS
// module's load gets in this process: the hand-over for the file run named (-e MQ_SCENARIO).
func k6Stub(gs *state.GlobalState, load func(h *handover.Run) error) *cobra.Command {
	root := &cobra.Command{Use: "k6", SilenceErrors: true, SilenceUsage: true}
	k6run := &cobra.Command{Use: "run", RunE: func(c *cobra.Command, _ []string) error {
		envs, _ := c.Flags().GetStringArray("env")
		for _, kv := range envs {
			if file, ok := strings.CutPrefix(kv, "MQ_SCENARIO="); ok {
				return load(handover.For(file))
			}
		}
		return nil
	}}
	k6run.Flags().StringArrayP("env", "e", nil, "")
	k6run.Flags().String("address", "", "")
	k6run.Flags().BoolP("quiet", "q", false, "")
	x := &cobra.Command{Use: "x"}
	x.AddCommand(New(gs))
	root.AddCommand(k6run, x)
	return root
}

// runStub runs `k6 x mqbench args…` under k6Stub: the exit code and stderr.
func runStub(t *testing.T, load func(h *handover.Run) error, args ...string) (int, string) {
	t.Helper()
	gs := state.NewGlobalState(context.Background())
	var stderr bytes.Buffer
	gs.Stderr.Writer, gs.Stdout.Writer = &stderr, io.Discard
	code := 0
	gs.OSExit = func(c int) { code = c }
	root := k6Stub(gs, load)
	root.SetArgs(append([]string{"x", "mqbench"}, args...))
	if err := root.Execute(); err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return code, stderr.String()
}
