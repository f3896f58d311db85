package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/version"
	"go.k6.io/k6/v2/cmd/state"
)

// `k6 x mqbench --version` and `version` print the versions summary.json records and
// exit 0; `version --json` prints them as JSON; an argument or unknown flag is a usage error.
func TestVersion(t *testing.T) {
	line := version.Get().String() + "\n"
	for _, c := range []struct {
		args   []string
		code   int
		stdout string // "" : checked as JSON
		stderr string
	}{
		{[]string{"--version"}, exitcode.OK, line, ""},
		{[]string{"version"}, exitcode.OK, line, ""},
		{[]string{"version", "--json"}, exitcode.OK, "", ""},
		{[]string{"version", "now"}, exitcode.Usage, "-", `mqbench version: unknown command "now" for "k6 x mqbench version"`},
		{[]string{"version", "--yaml"}, exitcode.Usage, "-", "mqbench version: unknown flag: --yaml"},
	} {
		gs := state.NewGlobalState(context.Background())
		var stdout, stderr bytes.Buffer
		gs.Stdout.Writer, gs.Stderr.Writer = &stdout, &stderr
		code := exitcode.OK
		gs.OSExit = func(c int) { code = c }
		if err := underK6(gs, c.args, &stdout, &stderr); err != nil {
			t.Errorf("%q: error %v reached k6", c.args, err)
		}
		switch {
		case code != c.code || !strings.Contains(stderr.String(), c.stderr) || (c.stderr == "" && stderr.Len() > 0):
			t.Errorf("%q: exit %d, stderr %q; want exit %d, stderr %q", c.args, code, stderr.String(), c.code, c.stderr)
		case c.stdout == "":
			var got version.Info
			if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got != version.Get() {
				t.Errorf("%q: stdout %q (%v); want %+v as JSON", c.args, stdout.String(), err, version.Get())
			}
		case c.stdout != "-" && stdout.String() != c.stdout:
			t.Errorf("%q: stdout %q, want %q", c.args, stdout.String(), c.stdout)
		}
	}
}
