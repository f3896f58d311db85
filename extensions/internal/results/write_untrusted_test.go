package results_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A cell id that is not a file name writes no file (a merged shard's ids come from a
// stranger): nothing lands outside the run's folder, and Write says which cell.
func TestWriteRefusesCellIDPaths(t *testing.T) {
	for _, id := range []string{"../../../PWNED", "a/b", `a\b`, "..", "", "x\x00y"} {
		top := t.TempDir()
		dir := filepath.Join(top, "s", "run")
		s := sample()
		s.Cells = s.Cells[:1]
		s.Cells[0].ID = id
		h := hist.New()
		h.Record(1000)
		_, err := results.WriteData(dir, s, results.Hists{id: {"e2e": h}})
		if err == nil || !strings.Contains(err.Error(), "cells[0]: its id is not a file name") {
			t.Errorf("id %q: %v", id, err)
		}
		if _, err := os.Stat(filepath.Join(top, "PWNED.e2e.hgrm")); err == nil {
			t.Errorf("id %q: wrote outside the run's folder", id)
		}
		for _, sub := range []string{"hgrm", "hdr"} {
			if entries, _ := os.ReadDir(filepath.Join(dir, sub)); len(entries) > 0 {
				t.Errorf("id %q: wrote %s/%s", id, sub, entries[0].Name())
			}
		}
	}
}

// Runs of one scenario started in the same second get their own folders.
func TestNewRunDirExclusive(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "results", "scn")
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir, err := results.NewRunDir(parent, start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || seen[dir] {
				t.Errorf("NewRunDir: %s, %v (seen before: %v)", dir, err, seen[dir])
			}
			seen[dir] = true
		}()
	}
	wg.Wait()
	for _, want := range []string{"20260102T030405Z", "20260102T030405Z-2", "20260102T030405Z-3", "20260102T030405Z-4"} {
		if !seen[filepath.Join(parent, want)] {
			t.Errorf("no %s among %v", want, seen)
		}
	}
}
