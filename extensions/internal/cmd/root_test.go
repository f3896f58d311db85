package cmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"go.k6.io/k6/v2/cmd/state"
)

// The one place a command's error becomes the process's exit: its message alone on stderr
// (no usage, no log prefix) and its code; a bad flag is a usage error, k8s's an invalid
// scenario.
func TestNewTurnsErrorsIntoExits(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		line string
	}{
		{[]string{"explain", "kafak"}, exitcode.InvalidScenario, `mqbench explain: unknown broker "kafak"`},
		{[]string{"compare", "--nope"}, exitcode.Usage, "mqbench compare: unknown flag: --nope"},
		{[]string{"merge", "--max-skew", "soon", "x"}, exitcode.Usage, `mqbench merge: invalid argument "soon"`},
		{[]string{"k8s", "--runners", "two", "x.yaml"}, exitcode.InvalidScenario, `mqbench k8s: invalid argument "two"`},
		{[]string{"validate", "/nonexistent/s.yaml"}, exitcode.InvalidScenario, "1 of 1 scenario files invalid"},
	} {
		gs := state.NewGlobalState(context.Background())
		var stderr bytes.Buffer
		gs.Stderr.Writer = &stderr
		code := -1
		gs.OSExit = func(c int) { code = c }
		root := New(gs)
		root.SetArgs(c.args)
		if err := root.Execute(); err != nil {
			t.Errorf("%v: error %v reached k6, want it handled", c.args, err)
		}
		if code != c.code || !bytes.Contains(stderr.Bytes(), []byte(c.line)) || bytes.Contains(stderr.Bytes(), []byte("Usage:")) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and a line with %q", c.args, code, stderr.String(), c.code, c.line)
		}
	}
}
