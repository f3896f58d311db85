package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"go.k6.io/k6/v2/cmd/state"
)

// writeCompareRun writes a finished one-cell run of scenario name into dir.
func writeCompareRun(t *testing.T, dir, name string) {
	t.Helper()
	h := hist.New()
	h.Record(1000)
	s := &results.Summary{Schema: results.Schema, Scenario: name, Complete: true,
		Cells: []results.Cell{{ID: "c1", Status: "complete", E2ELatency: h.Snapshot()}}}
	if _, err := report.Write(dir, s, results.Hists{"c1": {"e2e": h}}); err != nil {
		t.Fatal(err)
	}
}

// Two compares started in the same second each get a folder of their own under
// <results>/compare, time-ordered (the second one's name gets -2), each holding its own
// report: the second used to overwrite the first's.
func TestCompareFolderPerInvocation(t *testing.T) {
	root := t.TempDir()
	t.Setenv("MQ_RESULTS", root)
	second := time.Date(2026, 11, 28, 16, 0, 0, 0, time.UTC)
	compareNow = func() time.Time { return second }
	t.Cleanup(func() { compareNow = time.Now })

	runA, runB := filepath.Join(root, "alpha", "r1"), filepath.Join(root, "beta", "r1")
	writeCompareRun(t, runA, "alpha")
	writeCompareRun(t, runB, "beta")
	var wrote []string
	for _, dir := range []string{runA, runB} {
		gs := state.NewGlobalState(context.Background())
		var stdout bytes.Buffer
		gs.Stdout.Writer = &stdout
		cmd := Compare(gs)
		cmd.SetArgs([]string{dir})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("compare %s: %v", dir, err)
		}
		wrote = append(wrote, stdout.String())
	}

	entries, err := os.ReadDir(filepath.Join(root, "compare"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"20261128T160000Z", "20261128T160000Z-2"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("compare folders %v, want %v", names, want)
	}
	for i, own := range []string{runA, runB} {
		other := []string{runB, runA}[i]
		dir := filepath.Join(root, "compare", want[i])
		md, err := os.ReadFile(filepath.Join(dir, "compare.md"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(md), own) || strings.Contains(string(md), other) {
			t.Errorf("%s/compare.md is not the report of the compare of %s:\n%s", want[i], own, md)
		}
		if _, err := os.Stat(filepath.Join(dir, "compare.html")); err != nil {
			t.Error(err)
		}
		if !strings.Contains(wrote[i], filepath.Join(dir, "compare.html")) {
			t.Errorf("compare %d printed another folder than its own (%s):\n%s", i+1, dir, wrote[i])
		}
	}
}
