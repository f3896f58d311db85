package cmd

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// The scenario file and --runners are taken out; every other argument is a k6 run flag
// passed to each runner as given. Wrong ones are usage errors (2) saying what is wrong.
func TestTakeRunners(t *testing.T) {
	for _, c := range []struct {
		args []string
		n    int
		file string
		rest []string
		err  string
	}{
		{args: []string{"x.yaml", "--runners", "3"}, n: 3, file: "x.yaml"},
		{args: []string{"--runners=2", "x.yaml", "--out", "json=o.json", "-e", "A=1"}, n: 2, file: "x.yaml", rest: []string{"--out", "json=o.json", "-e", "A=1"}},
		{args: []string{"x.yaml"}, err: "mqbench distributed: say how many runners: --runners N"},
		{args: []string{"--runners", "2"}, err: "mqbench distributed: name a scenario file: k6 x mqbench distributed FILE --runners N"},
		{args: []string{"x.yaml", "--runners"}, err: "mqbench distributed: --runners needs a number"},
		{args: []string{"x.yaml", "--runners", "0"}, err: `mqbench distributed: --runners must be a number from 1 to 1000, got "0"`},
		{args: []string{"x.yaml", "--runners=two"}, err: `mqbench distributed: --runners must be a number from 1 to 1000, got "two"`},
	} {
		n, file, rest, err := takeRunners(c.args)
		if c.err != "" {
			if err == nil || err.Error() != c.err || exitcode.Of(err) != exitcode.Usage {
				t.Errorf("%q: error %v (exit %d), want %q (exit 2)", c.args, err, exitcode.Of(err), c.err)
			}
			continue
		}
		if err != nil || n != c.n || file != c.file || !reflect.DeepEqual(rest, c.rest) {
			t.Errorf("%q: %d, %q, %q, %v; want %d, %q, %q", c.args, n, file, rest, err, c.n, c.file, c.rest)
		}
	}
}

// A scenario file that is not there is named by the command that was given it.
func TestMissingScenarioNamesTheCommand(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.yaml")
	for _, args := range [][]string{{"run", missing}, {"distributed", missing, "--runners", "2"}, {"search", missing}} {
		line := "mqbench " + args[0] + ": scenario file not found: " + missing
		if code, stderr := runStub(t, nil, args...); code != exitcode.InvalidScenario || !strings.Contains(stderr, line) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", args, code, stderr, exitcode.InvalidScenario, line)
		}
	}
}
