package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"go.k6.io/k6/v2/cmd/state"
)

// compare's bad arguments come back in-process as usage errors (2) naming the problem, and
// write no output folder. A tolerance needs its percent sign: 0.1 would be 10 % to some
// readers and 0.1 % to others.
func TestCompareArguments(t *testing.T) {
	root := t.TempDir()
	t.Setenv("MQ_RESULTS", root)
	missing := filepath.Join(t.TempDir(), "nope")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "name the run folders to compare"},
		{[]string{"--baseline", missing}, "--baseline and --candidate go together"},
		{[]string{"--baseline", missing, "--candidate", missing, missing}, "either run folders or --baseline/--candidate"},
		{[]string{"--tolerance", "ten", missing}, `mqbench compare: --tolerance: write a percentage such as 10% (got "ten")`},
		{[]string{"--tolerance", "0.1", "--baseline", missing, "--candidate", missing}, `mqbench compare: --tolerance: write a percentage such as 10% (got "0.1")`},
		{[]string{"--tolerance=10", missing}, `--tolerance: write a percentage such as 10% (got "10")`},
		{[]string{"--tolerance", "150%", "--baseline", missing, "--candidate", missing}, `mqbench compare: --tolerance: give a percentage from 0% to 100% (got "150%")`},
		{[]string{"--tolerance", "-5%", missing}, `--tolerance: give a percentage from 0% to 100% (got "-5%")`},
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
	if _, err := os.Stat(filepath.Join(root, "compare")); !os.IsNotExist(err) {
		t.Errorf("bad arguments left an output folder: %v", err)
	}
}
