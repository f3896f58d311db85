package jsmodule

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// A run stopped before its cells started measured nothing: each threshold is "no data",
// fails (its verdict gauge reads 1, so k6 exits 99) and summary.json says so, where the
// empty metric's 0 used to pass p(99) < 20ms.
func TestThresholdsWithoutDataFail(t *testing.T) {
	dir := t.TempDir()
	text := "name: nodata\nbroker: { type: nats, url: nats://127.0.0.1:4222 }\nworkload: { destination: d, duration: 1s }\n" +
		"matrix:\n  - { size: 64B, rate: 10 }\nthresholds:\n  mq_e2e_latency: [\"p(99) < 20ms\"]\n  mq_publish_errors: [\"count == 0\"]\n"
	path, sc, run := loadedScenario(t, dir, "nodata", text)
	rm := &RootModule{path: path, run: run, resultsDir: dir, plan: plan.Build(sc, run.RunIDString(), 1)}
	ths := rm.mqThresholds(nil)
	if len(ths) != 2 {
		t.Fatalf("%d thresholds, want 2: %+v", len(ths), ths)
	}
	for _, th := range ths {
		if th.OK || th.Status != results.StatusNoData || th.Value != nil {
			t.Errorf("%s %s: ok %v status %q value %v; want no data, failed", th.Metric, th.Source, th.OK, th.Status, th.Value)
		}
	}
	for _, j := range rm.judge(true) {
		if j.res.OK {
			t.Errorf("%s: judged ok on no data: its gauge would let k6 pass the run", j.th.ID)
		}
	}
}
