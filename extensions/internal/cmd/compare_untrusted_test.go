package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"go.k6.io/k6/v2/cmd/state"
)

// `compare DIR` on a results folder whose summary.json names a file outside it (the
// process's environment, a secret beside the folder): exit 2, one line naming the field,
// and none of the file printed (finding 3).
func TestCompareUntrustedFolder(t *testing.T) {
	top := t.TempDir()
	secret := filepath.Join(top, "secret")
	if err := os.WriteFile(secret, []byte("MQBENCH_CANARY_TOKEN=hunter2 1 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"../../../../../../../../proc/self/environ", "../secret", secret, "/etc/passwd"} {
		dir := filepath.Join(top, "run")
		os.RemoveAll(dir)
		h := hist.New()
		h.Record(1000)
		s := &results.Summary{Schema: results.Schema, Scenario: "x", Complete: true,
			Cells: []results.Cell{{ID: "c1", Status: "complete", E2ELatency: h.Snapshot()}}}
		if _, err := report.Write(dir, s, results.Hists{"c1": {"e2e": h}}); err != nil {
			t.Fatal(err)
		}
		s.Cells[0].Hgrm = map[string]string{"e2e": rel}
		if err := writeJSON(filepath.Join(dir, "summary.json"), s); err != nil {
			t.Fatal(err)
		}
		gs := state.NewGlobalState(context.Background())
		var stdout bytes.Buffer
		gs.Stdout.Writer = &stdout
		cmd := Compare(gs)
		cmd.SetArgs([]string{dir, "--out", filepath.Join(top, "out")})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		if exitcode.Of(err) != exitcode.Usage || !strings.Contains(err.Error(), "cells[0].hgrm.e2e: not a relative path inside the run's folder") {
			t.Fatalf("compare with hgrm %s: %v (exit %d)", rel, err, exitcode.Of(err))
		}
		if msg := err.Error() + stdout.String(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "root:") ||
			strings.Contains(msg, "PATH=") || strings.Contains(err.Error(), "\n") {
			t.Errorf("compare printed a file's content or several lines: %q", msg)
		}
	}
}
