package search

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Two searches of one scenario started in the same second (a CI matrix, a retry) get a
// folder each: the second must not write its steps over the first's.
func TestNewFolderPerSearch(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("name: s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := Options{Scenario: &scenario.Scenario{Name: "s", File: file}, Root: filepath.Join(dir, "results")}
	seen := map[string]bool{}
	for range 3 {
		r, err := New(o)
		if err != nil {
			t.Fatal(err)
		}
		if seen[r.Dir()] {
			t.Fatalf("two searches share %s", r.Dir())
		}
		seen[r.Dir()] = true
		if fi, err := os.Stat(filepath.Join(r.Dir(), "steps")); err != nil || !fi.IsDir() {
			t.Fatalf("%s: no steps folder: %v", r.Dir(), err)
		}
	}
}
