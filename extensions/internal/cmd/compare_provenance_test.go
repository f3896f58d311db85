package cmd

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"go.k6.io/k6/v2/cmd/state"
)

// The gate prints a warning line, naming both values, when baseline and candidate differ
// in mqbench version or scenario hash, or when a summary predates them; the verdict and the
// exit code stay the figures' (here identical runs: 0).
func TestCompareWarnsOnProvenance(t *testing.T) {
	const shaA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	const shaB = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"
	write := func(dir, mqbench, sha string) string {
		h := hist.New()
		for v := int64(1000); v < 2000; v += 10 {
			h.Record(v)
		}
		s := &results.Summary{Schema: results.Schema, Scenario: "prov", Complete: true, Mqbench: mqbench, ScenarioSHA256: sha,
			Cells: []results.Cell{{ID: "c1", Status: "complete", Sent: 100, Received: 100, ReceiverRate: 100, E2ELatency: h.Snapshot()}}}
		if _, err := report.Write(dir, s, results.Hists{"c1": {"e2e": h}}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, c := range []struct {
		name         string
		baseV, baseS string
		candV, candS string
		want         []string
	}{
		{"same build and file", "v1.2.0", shaA, "v1.2.0", shaA, nil},
		{"another build", "v1.2.0", shaA, "v1.3.0", shaA, []string{"warning: baseline and candidate differ in mqbench version: baseline v1.2.0, candidate v1.3.0"}},
		{"another file", "v1.2.0", shaA, "v1.2.0", shaB, []string{"warning: baseline and candidate differ in scenario_sha256 (another scenario file): baseline " + shaA + ", candidate " + shaB}},
		{"an older baseline", "", "", "v1.2.0", shaA, []string{"records no mqbench version or scenario_sha256 (its summary.json predates them): cannot tell"}},
	} {
		top := t.TempDir()
		base := write(filepath.Join(top, "base"), c.baseV, c.baseS)
		cand := write(filepath.Join(top, "cand"), c.candV, c.candS)
		gs := state.NewGlobalState(context.Background())
		var stdout bytes.Buffer
		gs.Stdout.Writer = &stdout
		cmd := Compare(gs)
		cmd.SetArgs([]string{"--baseline", base, "--candidate", cand, "--out", filepath.Join(top, "out")})
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		err := cmd.Execute()
		out := stdout.String()
		if exitcode.Of(err) != exitcode.OK || !strings.Contains(out, "result: PASS") {
			t.Errorf("%s: exit %d (%v), want 0 and a PASS:\n%s", c.name, exitcode.Of(err), err, out)
		}
		if n := strings.Count(out, "warning:"); n != len(c.want) {
			t.Errorf("%s: %d warnings, want %d:\n%s", c.name, n, len(c.want), out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: no line with %q:\n%s", c.name, w, out)
			}
		}
	}
}
