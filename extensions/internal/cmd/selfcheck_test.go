package cmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"go.k6.io/k6/v2/cmd/state"
)

// Options the self-check cannot measure with are a usage error, named, before anything runs.
// (That the self-check passes and fails as it must is make test's and the itests' part: it
// needs a k6 binary.)
func TestSelfcheckBadOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"selfcheck", "--rate", "5"}, "mqbench selfcheck: rate 5: give 10 to 100000"},
		{[]string{"selfcheck", "--delay", "10us"}, "mqbench selfcheck: delay 10µs: give 100us to 1s"},
		{[]string{"selfcheck", "--tolerance", "3ms"}, "mqbench selfcheck: tolerance 3ms: give more than 0 and less than the delay (2ms)"},
		{[]string{"selfcheck", "--stall", "100ms"}, "mqbench selfcheck: stall 100ms: give 200ms to 1m"},
		{[]string{"selfcheck", "extra"}, "mqbench selfcheck: takes no arguments, got [\"extra\"]"},
	} {
		gs := state.NewGlobalState(context.Background())
		var stderr bytes.Buffer
		gs.Stderr.Writer = &stderr
		code := -1
		gs.OSExit = func(c int) { code = c }
		root := New(gs)
		root.SetArgs(c.args)
		_ = root.Execute()
		if code != exitcode.Usage || !bytes.Contains(stderr.Bytes(), []byte(c.line)) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr.String(), exitcode.Usage, c.line)
		}
	}
}
