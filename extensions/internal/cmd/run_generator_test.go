package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/handover"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// writesVerdict is a stand-in load that, like the JS module, makes its own run folder under
// the hand-over's root, hands it back and writes summary there (nil: writes none), then ends
// as k6 does when a threshold failed (99). beside (nil: none) is another run of the scenario
// into the same root, started later, writing its own folder meanwhile.
func writesVerdict(summary, beside *results.Summary) func(h *handover.Run) error {
	return func(h *handover.Run) error {
		if summary != nil {
			dir, err := results.NewRunDir(runenv.ScenarioDir(h.Root, h.Scenario.Name), time.Now())
			if err != nil {
				return err
			}
			h.Made(dir)
			if _, err := report.Write(dir, summary, nil); err != nil {
				return err
			}
		}
		if beside != nil {
			if _, err := report.Write(runenv.RunDir(h.Root, h.Scenario.Name, time.Now().Add(time.Hour)), beside, nil); err != nil {
				return err
			}
		}
		return exitcode.New(exitcode.ThresholdsFailed, "thresholds on metrics 'dropped_iterations{scenario:c2_publish}' have been crossed")
	}
}

// genScenario writes the two-cell scenario droppedRun's summaries are of.
func genScenario(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "gen.yaml")
	body := "name: gen\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: 5s }\n" +
		"matrix: [{ size: 256B, rate: 500 }, { size: 256B, rate: 1000 }]\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
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
	file := genScenario(t)
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
			code, stderr := runStub(t, writesVerdict(tc.summary, nil), "run", file, "--results", t.TempDir())
			checkVerdict(t, code, stderr, tc.code, tc.want, tc.absent)
		})
	}
}

// Two runs of one scenario into one root (two processes, each with its own hand-over): each
// rewords k6's verdict from the folder its module made, not from the scenario's latest
// folder, which is the other run's when that one started later.
func TestRunsIntoOneRootRewordTheirOwnFolder(t *testing.T) {
	file, root := genScenario(t), t.TempDir()
	for _, tc := range []struct {
		name        string
		own, beside *results.Summary
		code        int
		want        []string
		absent      []string
	}{
		{name: "the generator fell behind, the later run breached", own: droppedRun(false), beside: droppedRun(true),
			code: exitcode.GeneratorBehind, want: []string{"mqbench: " + results.GeneratorVerdict + ":"}, absent: []string{"thresholds failed"}},
		{name: "a breach, the later run's generator fell behind", own: droppedRun(true), beside: droppedRun(false),
			code: exitcode.ThresholdsFailed, want: []string{"mqbench: 2 of 3 thresholds failed:"}, absent: []string{results.GeneratorVerdict}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runStub(t, writesVerdict(tc.own, tc.beside), "run", file, "--results", root)
			checkVerdict(t, code, stderr, tc.code, tc.want, tc.absent)
		})
	}
}

// checkVerdict checks run's exit code and that stderr says every want and no absent.
func checkVerdict(t *testing.T, code int, stderr string, wantCode int, want, absent []string) {
	t.Helper()
	if code != wantCode {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, wantCode, stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	}
	for _, a := range absent {
		if strings.Contains(stderr, a) {
			t.Errorf("stderr has %q:\n%s", a, stderr)
		}
	}
}
