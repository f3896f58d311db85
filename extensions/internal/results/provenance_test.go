package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

const testSHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"

// summary.json names what made the run at its top level (mqbench, k6, go, scenario_sha256,
// pacing), reads back through Load, and a summary without them (older) reads back empty.
func TestSummaryNamesItsMaking(t *testing.T) {
	made := sample()
	made.Mqbench, made.K6, made.Go, made.ScenarioSHA256, made.Pacing = "v1.2.0", "v2.1.0", "go1.26.7", testSHA, "precise"
	for _, c := range []struct {
		name string
		s    *results.Summary
		want map[string]string
	}{
		{"recorded", made, map[string]string{"mqbench": "v1.2.0", "k6": "v2.1.0", "go": "go1.26.7", "scenario_sha256": testSHA, "pacing": "precise"}},
		{"older", sample(), map[string]string{"mqbench": "", "k6": "", "go": "", "scenario_sha256": "", "pacing": ""}},
	} {
		dir := t.TempDir()
		if _, err := results.WriteData(dir, c.s, nil); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]any
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if got, ok := top[k]; !ok || got != v {
				t.Errorf("%s: summary.json %q = %v (present %v), want %q", c.name, k, got, ok, v)
			}
		}
		r, err := results.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got := [5]string{r.Mqbench, r.K6, r.Go, r.ScenarioSHA256, r.Pacing}; got != [5]string{c.want["mqbench"], c.want["k6"], c.want["go"], c.want["scenario_sha256"], c.want["pacing"]} {
			t.Errorf("%s: read back %q", c.name, got)
		}
	}
}
