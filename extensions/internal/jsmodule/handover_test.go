package jsmodule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Under `k6 x mqbench run` the load takes run's hand-over: the scenario run parsed (the file
// is not read again), its results root over MQ_RESULTS, its fault-command opt-in; and it hands
// back the run folder it made, which is the one the results are written to. Two runs of one
// scenario into one root in the same second each hand back their own.
func TestLoadTakesTheHandOver(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	body := "name: x\nbroker: { type: nats, url: \"nats://127.0.0.1:1\" }\n" +
		"workload: { destination: x, duration: 10s }\nmatrix: [{ size: 100B, rate: 10 }]\n" +
		"faults:\n  kill: \"/bin/true\"\n  schedule: [{ at: 1s, node: n1 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	// Parsed once: the load must not read the file again (this one no longer parses), nor
	// write where the environment points.
	if err := os.WriteFile(file, []byte("not: [a scenario"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_RESULTS", filepath.Join(dir, "env-root"))
	t.Setenv(scenario.AllowFaultCommandsEnv, "")
	root := filepath.Join(dir, "out")
	var made []string
	for _, name := range []string{"first run", "second run, same second"} {
		h := &handover.Run{File: file, Scenario: sc, Root: root, AllowFaultCommands: true}
		takeBack := handover.Give(h)
		rm := New().load(file, scenario.Vars{})
		takeBack()
		if rm.resultsDir != h.Dir() || filepath.Dir(h.Dir()) != filepath.Join(root, "x") {
			t.Fatalf("%s: writes %s, handed back %q, want one folder under %s", name, rm.resultsDir, h.Dir(), filepath.Join(root, "x"))
		}
		rm.writeNotRun("mqbench: broker unreachable")
		run, err := results.Load(h.Dir())
		if err != nil || run.Dir != h.Dir() || run.Scenario != "x" || run.Error != "broker unreachable" {
			t.Fatalf("%s: the folder handed back holds %+v, %v; want this run's summary", name, run, err)
		}
		made = append(made, h.Dir())
	}
	if made[0] == made[1] {
		t.Errorf("both runs handed back %s", made[0])
	}
	if _, err := os.Stat(filepath.Join(dir, "env-root")); !os.IsNotExist(err) {
		t.Errorf("a run with a hand-over wrote under MQ_RESULTS: %v", err)
	}
}
