package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
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
		{"missing scenario", func() error { _, err := loadScenario("run", filepath.Join(dir, "nope.yaml")); return err }(), exitcode.InvalidScenario, "scenario file not found: "},
		{"folder as scenario", func() error { _, err := loadScenario("run", dir); return err }(), exitcode.InvalidScenario, "is a folder, not a scenario file"},
		{"empty scenario", func() error { _, err := loadScenario("run", file); return err }(), exitcode.InvalidScenario, "empty scenario file"},
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

// --allow-fault-commands is run's own flag (k6 run never sees it): the in-process k6 run's
// load, where a scenario's fault commands are allowed or refused (finding 1), gets the
// opt-in through the hand-over, and this process's environment is left as it was.
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
	file := filepath.Join(t.TempDir(), "faults.yaml")
	body := "name: faults\nbroker: { type: nats, url: \"nats://127.0.0.1:1\" }\n" +
		"workload: { destination: x, duration: 10s }\nmatrix: [{ size: 100B, rate: 10 }]\n" +
		"faults:\n  kill: \"/bin/true\"\n  schedule: [{ at: 1s, node: n1 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args    []string
		code    int
		refused string // "": the load accepts the scenario
	}{
		{[]string{"run", file}, exitcode.InvalidScenario, file + ": faults:"},
		{[]string{"run", file, "--allow-fault-commands"}, 0, ""},
	} {
		t.Setenv(scenario.AllowFaultCommandsEnv, "")
		loaded := false
		load := func(h *handover.Run) error {
			loaded = true
			if err := scenario.CheckFaultCommands(file, h.Scenario, h.Getenv(os.Getenv)); err != nil { // as the module's load
				return exitcode.New(exitcode.InvalidScenario, "%v", err)
			}
			return nil
		}
		code, stderr := runStub(t, load, append(tc.args, "--results", t.TempDir())...)
		if !loaded || code != tc.code || (tc.refused == "") != (stderr == "") || !strings.Contains(stderr, tc.refused) {
			t.Errorf("%q: load reached %v, exit %d, stderr %q; want exit %d, refused with %q (\"\": accepted)", tc.args, loaded, code, stderr, tc.code, tc.refused)
		}
		if got := os.Getenv(scenario.AllowFaultCommandsEnv); got != "" {
			t.Errorf("%q: %s=%q in this process's environment, want it untouched", tc.args, scenario.AllowFaultCommandsEnv, got)
		}
	}
}
