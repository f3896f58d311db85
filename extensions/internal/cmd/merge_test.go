package cmd

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/merge"
	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"go.k6.io/k6/v2/cmd/state"
)

// `merge DIR` end to end on shards written as runners write them: the scenario's thresholds
// (from the YAML in shard.json, through plan.Build) judged on the merged data, the merged
// results written into the run's folder, and the exit code.
func TestMergeRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	cell := func(n int, slow float64, dropped int64) []mergetest.Cell {
		return []mergetest.Cell{{ID: "c1", E2E: mergetest.Latencies(rng, n, slow), Dropped: dropped}}
	}
	for _, tc := range []struct {
		name     string
		a, b     []mergetest.Cell
		yaml     string // the scenario in both shards ("": mergetest.YAML)
		edit     func(*results.Shard, *results.Summary)
		code     int
		stderr   string // in the message
		failedOn string // the failing threshold's metric
	}{
		// Runner B alone fails p(99) < 10ms (1.2% slow); the run (0.85%) passes.
		{name: "passes though a runner alone would fail", a: cell(40_000, 0.005, 0), b: cell(40_000, 0.012, 0)},
		// B five times larger: the run is 1.08% slow, though A alone passes.
		{name: "fails though a runner alone passes", a: cell(8_000, 0.005, 0), b: cell(40_000, 0.012, 0),
			code: exitcode.ThresholdsFailed, stderr: "mqbench merge: 1 of 2 thresholds failed on the merged run", failedOn: "mq_e2e_latency{cell:c1}"},
		// The validity threshold (count == 0) on the runners' summed drops.
		{name: "dropped iterations on one runner fail the run as the generator's", a: cell(1000, 0, 0), b: cell(1000, 0, 2),
			code: exitcode.GeneratorBehind, stderr: "the load generator could not hold the schedule", failedOn: "dropped_iterations{scenario:c1_publish}"},
		{name: "runners started apart", a: cell(1000, 0, 0), b: cell(1000, 0, 0),
			edit: func(m *results.Shard, _ *results.Summary) {
				m.Cells[0].StartedAt = mergetest.Start.Add(6 * time.Second).Format(time.RFC3339Nano)
			},
			code: exitcode.InvalidMerge, stderr: "invalid distributed run "},
		{name: "a scenario from another build", a: cell(1000, 0, 0), b: cell(1000, 0, 0),
			edit: func(m *results.Shard, _ *results.Summary) { m.Versions.K6 = "v2.0.0" },
			code: exitcode.InvalidMerge, stderr: `runner-2-of-2: k6 version "v2.0.0" differs from runner-1-of-2's "v2.1.0"`},
		{name: "a scenario the merge cannot parse", a: cell(1000, 0, 0), b: cell(1000, 0, 0), yaml: "name: merge-test\n",
			code: exitcode.InvalidMerge, stderr: "runner-1-of-2: the scenario in its shard.json does not parse here: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "merge-test", "run-1")
			for _, r := range []mergetest.Runner{{I: 1, N: 2, Cells: tc.a, YAML: tc.yaml}, {I: 2, N: 2, Cells: tc.b, YAML: tc.yaml, Edit: tc.edit}} {
				if _, err := mergetest.Write(dir, r); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			code, msg := mergeRun(&out, filepath.Dir(dir), merge.DefaultMaxSkew) // the scenario's folder: its latest run
			if code != tc.code || !strings.Contains(msg, tc.stderr) {
				t.Fatalf("exit %d %q, want %d with %q", code, msg, tc.code, tc.stderr)
			}
			if code == exitcode.InvalidMerge {
				for _, l := range strings.Split(msg, "\n") {
					if !strings.HasPrefix(l, "mqbench merge: invalid distributed run "+dir+": ") || !strings.Contains(l, "runner-") {
						t.Errorf("problem line does not name the shard: %q", l)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
					t.Error("an invalid run got merged results")
				}
				return
			}
			run, err := results.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Runners) != 2 || run.Runners[1].Dir != "runner-2-of-2" || !run.Complete || run.ThresholdsOK != (code == 0) {
				t.Errorf("merged summary: runners %+v complete %v thresholds_ok %v", run.Runners, run.Complete, run.ThresholdsOK)
			}
			if len(run.Thresholds) != 2 || len(run.Cells[0].Thresholds) != 2 {
				t.Fatalf("thresholds: %+v", run.Thresholds)
			}
			for _, th := range run.Thresholds {
				if th.OK != (th.Metric != tc.failedOn) || th.EvaluatedBy != "mqbench" || th.Value == nil {
					t.Errorf("threshold %+v (failing: %q)", th, tc.failedOn)
				}
			}
			for _, f := range []string{"summary.txt", "junit.xml", "report.html", "hdr/c1.e2e.hdr", "hgrm/c1.e2e.hgrm"} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("merged %s: %v", f, err)
				}
			}
			if !strings.Contains(out.String(), "mqbench merge: 2 runners merged into "+dir) {
				t.Errorf("stdout:\n%s", out.String())
			}
		})
	}
}

// A folder that is not there is a bad argument (2), a folder without shards an invalid run.
func TestMergeRunArguments(t *testing.T) {
	var out bytes.Buffer
	if code, msg := mergeRun(&out, filepath.Join(t.TempDir(), "nope"), merge.DefaultMaxSkew); code != exitcode.Usage || !strings.Contains(msg, "nope") {
		t.Errorf("missing folder: exit %d %q", code, msg)
	}
	if code, msg := mergeRun(&out, t.TempDir(), merge.DefaultMaxSkew); code != exitcode.InvalidMerge || !strings.Contains(msg, "no shard") {
		t.Errorf("empty folder: exit %d %q", code, msg)
	}
}

// The command: DIR and --max-skew reach the merge, the summary reaches k6's stdout, and a
// too small --max-skew comes back as the invalid-merge error, in-process.
func TestMergeCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "merge-test", "run-1")
	rng := rand.New(rand.NewPCG(51, 52))
	for i := 1; i <= 3; i++ {
		c := mergetest.Cell{ID: "c1", E2E: mergetest.Latencies(rng, 500, 0),
			Start: mergetest.Start.Add(time.Duration(i) * 3 * time.Second)} // 6 s apart
		if _, err := mergetest.Write(dir, mergetest.Runner{I: i, N: 3, Cells: []mergetest.Cell{c}}); err != nil {
			t.Fatal(err)
		}
	}
	gs := state.NewGlobalState(context.Background())
	var stdout bytes.Buffer
	gs.Stdout.Writer = &stdout
	cmd := Merge(gs)
	cmd.SetArgs([]string{dir, "--max-skew", "5s"})
	if err := cmd.Execute(); exitcode.Of(err) != exitcode.InvalidMerge || !strings.Contains(err.Error(), "started") {
		t.Errorf("--max-skew 5s on runners 6 s apart: %v (exit %d), want exit %d", err, exitcode.Of(err), exitcode.InvalidMerge)
	}
	cmd = Merge(gs)
	cmd.SetArgs([]string{dir, "--max-skew", "7s"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if out := stdout.String(); !strings.Contains(out, "mqbench merge: 3 runners merged into "+dir) || !strings.Contains(out, "c1") {
		t.Errorf("stdout:\n%s", out)
	}
}
