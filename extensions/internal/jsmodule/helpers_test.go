package jsmodule

import (
	"os"
	"path/filepath"
	"testing"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/runner"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// loadedScenario writes text as dir/name.yaml, loads it and makes its runner, as load does
// for a run: the path, the scenario and the runner.
func loadedScenario(t *testing.T, dir, name, text string) (string, *scenario.Scenario, *runner.Runner) {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	run, err := runner.New(plan.Build(sc, "test", 0))
	if err != nil {
		t.Fatal(err)
	}
	return path, sc, run
}
