package cmd

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"go.k6.io/k6/v2/cmd/state"
)

// compare's bad arguments come back in-process as usage errors (2) naming the problem.
func TestCompareArguments(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name the run folders to compare"},
		{[]string{"--baseline", missing}, "--baseline and --candidate go together"},
		{[]string{"--baseline", missing, "--candidate", missing, missing}, "either run folders or --baseline/--candidate"},
		{[]string{"--tolerance", "ten", missing}, `tolerance "ten"`},
		{[]string{"--alpha", "1.5", missing}, "--alpha must lie between 0 and 1"},
		{[]string{missing}, "nope"},
	} {
		gs := state.NewGlobalState(context.Background())
		cmd := Compare(gs)
		cmd.SetArgs(c.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("compare %v: %v (exit %d), want exit %d naming %q", c.args, err, exitcode.Of(err), exitcode.Usage, c.want)
		}
	}
}
