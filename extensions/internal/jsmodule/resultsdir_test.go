package jsmodule

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Two runs of one scenario loaded in the same second with the same MQ_RESULTS each get a
// folder of their own, made at load (before, both wrote <scenario>/<second> and one run's
// results were lost).
func TestLoadMakesItsOwnResultsFolder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "x.yaml")
	body := "name: x\nbroker: { type: nats, url: \"nats://127.0.0.1:1\" }\n" +
		"workload: { destination: x, duration: 10s }\nmatrix: [{ size: 100B, rate: 10 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_RESULTS", filepath.Join(dir, "results"))
	a, b := New().load(file, scenario.Vars{}), New().load(file, scenario.Vars{})
	if a.resultsDir == b.resultsDir {
		t.Fatalf("both runs write %s", a.resultsDir)
	}
	for _, d := range []string{a.resultsDir, b.resultsDir} {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || filepath.Dir(d) != filepath.Join(dir, "results", "x") {
			t.Errorf("%s: %v", d, err)
		}
	}
}
