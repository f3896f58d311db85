package cmd

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/spf13/cobra"
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

// Every command-line mistake is a usage error (2) on one line, however deep it is: under
// k6's `x` (a parent, as in the binary) an unknown command printed help and exited 0, and an
// unknown root flag or a missing argument reached k6 (255).
func TestCommandLineMistakesExit2(t *testing.T) {
	for _, c := range []struct {
		args []string
		line string
	}{
		{[]string{"rn", "x.yaml"}, `mqbench: unknown command "rn" (did you mean "run"?)`},
		{[]string{"vaildate"}, `mqbench: unknown command "vaildate" (did you mean "validate"?)`},
		{[]string{"frobnicate"}, `mqbench: unknown command "frobnicate" (commands: clock, compare, distributed, explain,`},
		{[]string{}, "mqbench: name a command (commands: clock, compare, distributed, explain,"},
		{[]string{"--bogus"}, "mqbench: unknown flag: --bogus"},
		{[]string{"validate"}, "mqbench validate: requires at least 1 arg(s), only received 0"},
		{[]string{"validate", "--bogus", "x.yaml"}, "mqbench validate: unknown flag: --bogus"},
		{[]string{"explain", "kafka", "nats"}, "mqbench explain: accepts at most 1 arg(s), received 2"},
		{[]string{"clock", "extra"}, `mqbench clock: unknown command "extra" for "k6 x mqbench clock"`},
		{[]string{"merge"}, "mqbench merge: name one run folder"},
		{[]string{"k8s", "--bogus"}, "mqbench k8s: unknown flag: --bogus"},
		{[]string{"selfcheck", "now"}, "mqbench selfcheck: takes no arguments"},
		{[]string{"compare", "--bogus"}, "mqbench compare: unknown flag: --bogus"},
		{[]string{"search"}, "mqbench search: name a scenario file"},
		{[]string{"run"}, "mqbench run: "}, // this test's k6 has no run command: that is said first
	} {
		gs := state.NewGlobalState(context.Background())
		var stderr, stdout bytes.Buffer
		gs.Stderr.Writer, gs.Stdout.Writer = &stderr, &stdout
		code := -1
		gs.OSExit = func(c int) {
			if code == -1 {
				code = c
			}
		}
		err := underK6(gs, c.args, &stdout, &stderr)
		lines := strings.Count(strings.TrimRight(stderr.String(), "\n"), "\n") + 1
		if err != nil || code != exitcode.Usage || !strings.Contains(stderr.String(), c.line) || lines != 1 || stdout.Len() > 0 {
			t.Errorf("%q: error %v, exit %d, stdout %q, stderr %q; want exit 2 and the one line %q", c.args, err, code, stdout.String(), stderr.String(), c.line)
		}
	}
}

// Asking for help is not a mistake: it prints the commands and exits 0.
func TestHelpIsNoMistake(t *testing.T) {
	gs := state.NewGlobalState(context.Background())
	var out bytes.Buffer
	code := 0
	gs.OSExit = func(c int) { code = c }
	root := New(gs)
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil || code != 0 || !strings.Contains(out.String(), "validate") {
		t.Errorf("--help: error %v, exit %d, output %q", err, code, out.String())
	}
}

// underK6 runs mqbench with args as the binary holds it: under k6's x command, which parses
// no flags of its own.
func underK6(gs *state.GlobalState, args []string, stdout, stderr io.Writer) error {
	k6 := &cobra.Command{Use: "k6", SilenceErrors: true, SilenceUsage: true}
	x := &cobra.Command{Use: "x", DisableFlagParsing: true, RunE: func(*cobra.Command, []string) error { return nil }}
	x.AddCommand(New(gs))
	k6.AddCommand(x)
	k6.SetArgs(append([]string{"x", "mqbench"}, args...))
	k6.SetOut(stdout)
	k6.SetErr(stderr)
	return k6.Execute()
}
