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
	"github.com/spf13/cobra"
	"go.k6.io/k6/v2/cmd/state"
)

// k6Verdict is a k6 root whose run leaves summary as the run's results (as the JS module
// writes them) and ends as k6 does when a threshold failed (99); a nil summary writes none.
func k6Verdict(gs *state.GlobalState, summary *results.Summary) *cobra.Command {
	root := &cobra.Command{Use: "k6", SilenceErrors: true, SilenceUsage: true}
	k6run := &cobra.Command{Use: "run", RunE: func(*cobra.Command, []string) error {
		if summary != nil {
			dir := filepath.Join(os.Getenv("MQ_RESULTS"), summary.Scenario, "20260102T030405Z")
			if _, err := report.Write(dir, summary, nil); err != nil {
				return err
			}
		}
		return exitcode.New(exitcode.ThresholdsFailed, "thresholds on metrics 'dropped_iterations{scenario:c2_publish}' have been crossed")
	}}
	k6run.Flags().StringArrayP("env", "e", nil, "")
	k6run.Flags().String("address", "", "")
	k6run.Flags().BoolP("quiet", "q", false, "")
	x := &cobra.Command{Use: "x"}
	x.AddCommand(New(gs))
	root.AddCommand(k6run, x)
	return root
}

// droppedRun is a finished quickstart whose c2 dropped 33 iterations; breach also fails c2's
// latency threshold.
func droppedRun(breach bool) *results.Summary {
	lag := hist.Stats{Count: 5000, Min: 1, Mean: 900, Max: 120000, P: map[string]float64{"p50": 50, "p99": 38000}}
	cell := func(id string, rate int) results.Cell {
		return results.Cell{ID: id, Status: "complete", Size: 256, SizeLabel: "256B", Header: "full", Load: "open", Rate: rate, Batch: 1,
			Producers: 1, Consumers: 1, WarmupS: 1, DurationS: 5, DrainS: 1, Sent: uint64(rate * 5), Received: uint64(rate * 5),
			ScheduleLag: lag, Thresholds: []results.Threshold{}}
	}
	v := func(f float64) *float64 { return &f }
	e2e := results.Threshold{Metric: "mq_e2e_latency{cell:c2}", Cell: "c2", Expression: "p(99)<50", Source: "p(99) < 50ms",
		OK: true, Status: results.StatusPass, Value: v(3.1), Unit: "ms", EvaluatedBy: "mqbench"}
	if breach {
		e2e.OK, e2e.Status, e2e.Value = false, results.StatusFail, v(79.7)
	}
	c1, c2 := cell("c1", 500), cell("c2", 1000)
	c2.DroppedIterations = 33
	return &results.Summary{Schema: results.Schema, Scenario: "gen", RunID: "0a1b2c3d", Pattern: "one-way", Samples: "aggregated",
		Broker: results.Broker{Type: "nats", URL: "embedded", AckMode: "none"}, Complete: true,
		FinishedAt: "2026-01-02T03:04:05.678Z", TestRunDurationMs: 15000, Cells: []results.Cell{c1, c2},
		Thresholds: []results.Threshold{e2e,
			{Metric: "dropped_iterations{scenario:c1_publish}", Cell: "c1", Expression: "count==0", Source: "count==0", OK: true, Status: results.StatusPass, Value: v(0), EvaluatedBy: "k6"},
			{Metric: "dropped_iterations{scenario:c2_publish}", Cell: "c2", Expression: "count==0", Source: "count==0", OK: false, Status: results.StatusFail, Value: v(33), EvaluatedBy: "k6"}}}
}

// Issue 45 item 6: a run that failed only because the load generator dropped iterations
// exits 117 saying so in plain words; with a broker threshold failing too it is a breach (99).
func TestRunGeneratorBehindIsNotABreach(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gen.yaml")
	body := "name: gen\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: 5s }\n" +
		"matrix: [{ size: 256B, rate: 500 }, { size: 256B, rate: 1000 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := "c2: mqbench could not start 33 of 6,000 sends on time (the load generator fell behind, short of CPU or of ready VUs: schedule lag p99 38.00ms, max 120.00ms): this is not the broker."
	for _, tc := range []struct {
		name    string
		summary *results.Summary
		code    int
		want    []string
		absent  []string
	}{
		{name: "only the generator", summary: droppedRun(false), code: exitcode.GeneratorBehind,
			want:   []string{"mqbench: " + results.GeneratorVerdict + ":\n  " + plain},
			absent: []string{"c2_publish", "thresholds failed"}},
		{name: "a broker threshold too", summary: droppedRun(true), code: exitcode.ThresholdsFailed,
			want: []string{"mqbench: 2 of 3 thresholds failed:", "mq_e2e_latency{cell:c2} p(99) < 50ms: measured 79.70ms", plain}},
		{name: "no summary: k6's message stands", code: exitcode.ThresholdsFailed,
			want: []string{"have been crossed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("MQ_RESULTS", "")
			gs := state.NewGlobalState(context.Background())
			var stderr bytes.Buffer
			gs.Stderr.Writer, gs.Stdout.Writer = &stderr, io.Discard
			code := 0
			gs.OSExit = func(c int) { code = c }
			root := k6Verdict(gs, tc.summary)
			root.SetArgs([]string{"x", "mqbench", "run", file, "--results", t.TempDir()})
			if err := root.Execute(); err != nil {
				t.Fatalf("Execute: %v", err)
			}
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(stderr.String(), a) {
					t.Errorf("stderr has %q:\n%s", a, stderr.String())
				}
			}
		})
	}
}
