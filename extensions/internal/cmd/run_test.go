package cmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"go.k6.io/k6/v2/cmd/state"
)

func TestTakeResults(t *testing.T) {
	for _, tc := range []struct {
		args []string
		dir  string
		rest []string
		code int
	}{
		{[]string{"s.yaml"}, "", []string{"s.yaml"}, 0},
		{[]string{"s.yaml", "--results", "out", "-q"}, "out", []string{"s.yaml", "-q"}, 0},
		{[]string{"--results=out", "s.yaml"}, "out", []string{"s.yaml"}, 0},
		{[]string{"s.yaml", "--results"}, "", nil, exitcode.Usage},
		{[]string{"s.yaml", "--results="}, "", nil, exitcode.Usage},
	} {
		dir, rest, err := takeResults(tc.args)
		if got := exitcode.Of(err); got != tc.code {
			t.Errorf("%v: exit %d, want %d (%v)", tc.args, got, tc.code, err)
			continue
		}
		if err == nil && (dir != tc.dir || !reflect.DeepEqual(rest, tc.rest)) {
			t.Errorf("%v: dir %q rest %q, want %q %q", tc.args, dir, rest, tc.dir, tc.rest)
		}
	}
}

func TestSearchArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		file string
		rest []string
		code int
	}{
		{[]string{"s.yaml", "--out", "x"}, "s.yaml", []string{"--out", "x"}, 0},
		{[]string{"s.yaml", "--script", "lib/mqbench.js", "-q"}, "s.yaml", []string{"-q"}, 0},
		{[]string{"--script=lib/mqbench.js", "s.yaml"}, "s.yaml", nil, 0},
		{[]string{"-q"}, "", nil, exitcode.Usage},
	} {
		file, rest, err := searchArgs(tc.args)
		if got := exitcode.Of(err); got != tc.code {
			t.Errorf("%v: exit %d, want %d", tc.args, got, tc.code)
			continue
		}
		if err == nil && (file != tc.file || !reflect.DeepEqual(rest, tc.rest)) {
			t.Errorf("%v: file %q rest %q, want %q %q", tc.args, file, rest, tc.file, tc.rest)
		}
	}
}

func TestWithoutFile(t *testing.T) {
	got := withoutFile([]string{"-e", "A=s.yaml", "s.yaml", "--out", "x"}, "s.yaml")
	if want := []string{"-e", "A=s.yaml", "--out", "x"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLoadScenarioAndResultsFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		code int
		msg  string
	}{
		{"missing scenario", func() error { _, err := loadScenario(filepath.Join(dir, "nope.yaml")); return err }(), exitcode.InvalidScenario, "scenario file not found: "},
		{"folder as scenario", func() error { _, err := loadScenario(dir); return err }(), exitcode.InvalidScenario, "is a folder, not a scenario file"},
		{"empty scenario", func() error { _, err := loadScenario(file); return err }(), exitcode.InvalidScenario, "empty scenario file"},
		{"results under a file", checkWritable(filepath.Join(file, "results")), exitcode.ResultsUnwritable, "cannot be created: not a directory"},
		{"results created", checkWritable(filepath.Join(dir, "a", "b")), exitcode.OK, ""},
	} {
		if got := exitcode.Of(tc.err); got != tc.code {
			t.Errorf("%s: exit %d, want %d (%v)", tc.name, got, tc.code, tc.err)
		}
		if tc.err != nil && !strings.Contains(tc.err.Error(), tc.msg) {
			t.Errorf("%s: %q does not say %q", tc.name, tc.err, tc.msg)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "a", "b", "*")); len(left) != 0 {
		t.Errorf("the write check left %v behind", left)
	}
}

// --allow-fault-commands is run's own flag (k6 run never sees it) and sets
// MQ_ALLOW_FAULT_COMMANDS=1 for the in-process k6 run, whose load is where a scenario's fault
// commands are allowed or refused (finding 1).
func TestAllowFaultCommandsFlag(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		allow bool
		rest  []string
	}{
		{[]string{"s.yaml", "-q"}, false, []string{"s.yaml", "-q"}},
		{[]string{"s.yaml", "--allow-fault-commands", "-q"}, true, []string{"s.yaml", "-q"}},
		{[]string{"--allow-fault-commands", "s.yaml"}, true, []string{"s.yaml"}},
	} {
		allow, rest := takeAllowFaultCommands(tc.args)
		if allow != tc.allow || !reflect.DeepEqual(rest, tc.rest) {
			t.Errorf("%q: allow %v rest %q, want %v %q", tc.args, allow, rest, tc.allow, tc.rest)
		}
	}
	for _, tc := range []struct {
		args []string
		env  string
	}{
		{[]string{"run", "s.yaml"}, ""},
		{[]string{"run", "s.yaml", "--allow-fault-commands"}, "1"},
	} {
		t.Setenv(scenario.AllowFaultCommandsEnv, "")
		gs := state.NewGlobalState(context.Background())
		gs.Stderr.Writer = io.Discard
		gs.OSExit = func(int) {}
		root := New(gs)
		root.SetArgs(tc.args)
		_ = root.Execute() // this root has no k6 run: it stops there, after the flag was taken
		if got := os.Getenv(scenario.AllowFaultCommandsEnv); got != tc.env {
			t.Errorf("%q: %s=%q, want %q", tc.args, scenario.AllowFaultCommandsEnv, got, tc.env)
		}
	}
}
