package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A step's scenario is the cell alone at the step's rate and duration, and still validates.
func TestStepScenario(t *testing.T) {
	dir := t.TempDir()
	src := `name: cap
broker: { type: nats, url: "nats://127.0.0.1:4222" }
workload: { destination: q, warmup: 1s, payload: { content: file, file: body.bin } }
matrix:
  - &base { size: 1KB, rate: 1000, producers: 2 }
  - { <<: *base, size: 4KB, name: big, thresholds: { mq_e2e_latency: ["p(99) < 5ms"] } }
thresholds: { mq_messages_lost: ["count == 0"] }
search: { max_rate: 50000, step: 3s }
`
	file := filepath.Join(dir, "in", "cap.yaml")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{file: src, filepath.Join(dir, "in", "body.bin"): "x"} {
		if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := stepScenario([]byte(src), file, 1, "big", 12345, 3*time.Second, "payload.bin")
	if err != nil {
		t.Fatal(err)
	}
	stepFile := filepath.Join(dir, "step", "cap.yaml")
	if err := os.MkdirAll(filepath.Dir(stepFile), 0o755); err != nil {
		t.Fatal(err)
	}
	// The step's payload is a copy in its folder (a payload file must lie in the scenario's).
	if err := stepPayload(filepath.Join(dir, "in", "body.bin"), filepath.Dir(stepFile), "payload.bin", 4096); err != nil {
		t.Fatal(err)
	}
	sc, err := childrun.WriteScenario(stepFile, stepComment(file), out)
	if err != nil {
		b, _ := os.ReadFile(stepFile)
		t.Fatalf("%v\n%s", err, b)
	}
	c := sc.Cells
	if sc.Search != nil || len(c) != 1 || c[0].ID != "big" || c[0].Rate != 12345 || c[0].Duration != 3*time.Second ||
		c[0].SizeLabel != "4KB" || c[0].Producers != 2 || len(c[0].Thresholds) != 1 || len(sc.Thresholds) != 1 ||
		sc.Workload.Payload.File != filepath.Join(dir, "step", "payload.bin") {
		t.Errorf("step scenario = %+v, cells %+v", sc, c)
	}
}

func TestJudge(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	cell := results.Cell{ID: "c1", Status: "complete", Sent: 10000, WarmupS: 1, DurationS: 2, ReceiverRate: 5000,
		E2ELatency: hist.Stats{Count: 1, P: map[string]float64{"p50": 100, "p99": 900}},
		Timeline: []results.TimelinePoint{{T: 0, Sent: 5000, Received: 5000}, {T: 1, Sent: 5000, Received: 4990},
			{T: 2, Sent: 5000, Received: 4000}, {T: 3, Sent: 0, Received: 1010}}}
	s := &results.Summary{Cells: []results.Cell{cell}}
	st := Step{ExitCode: 0}
	judge(&st, s, 0.15)
	if !st.OK || st.BacklogEnd != 1010 || st.E2EP99US != 900 || len(st.Reasons) != 0 {
		t.Errorf("a held step: %+v", st)
	}
	st = Step{ExitCode: 0}
	judge(&st, s, 0.1)
	if st.OK || len(st.Reasons) != 1 || !strings.HasPrefix(st.Reasons[0], "backlog: 1010 messages waiting") {
		t.Errorf("a growing backlog: %+v", st)
	}
	s.Cells[0].DroppedIterations = 7
	s.Cells[0].Thresholds = []results.Threshold{{Metric: "mq_e2e_latency{cell:c1}", Source: "p(99) < 500us", Unit: "ms", Value: v(0.9)}}
	st = Step{ExitCode: 99}
	judge(&st, s, 0.5)
	if st.OK || strings.Join(st.Reasons, "; ") != "mq_e2e_latency p(99) < 500us: 900us; dropped_iterations: 7 (the generator could not hold the rate)" {
		t.Errorf("failed thresholds and drops: %+v", st)
	}
}
