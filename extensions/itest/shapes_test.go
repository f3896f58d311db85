package itest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// runShape writes a one-cell scenario named name (and, in the same folder, its other files)
// and runs it; a run that does not pass with one cell ends the test.
func runShape(t *testing.T, dir, name, yaml string, files map[string]string) run {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, file)
	if r.code != 0 || r.summary == nil || len(r.summary.Cells) != 1 {
		t.Fatalf("exit %d, want 0 and one cell\n%s", r.code, r)
	}
	return r
}

// decodeSummary decodes the run's summary.json into v (the fields a test reads beyond summary).
func decodeSummary(t *testing.T, r run, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(r.resultsDir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}
