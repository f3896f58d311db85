package plan

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
	"go.k6.io/k6/v2/lib"
	_ "go.k6.io/k6/v2/lib/executor" // registers the executors' option types
)

// The options JSON is what k6 itself decodes: every executor, duration and threshold form
// (short, and long with abortOnFail) must read back as k6 options.
func TestOptionsDecodeAsK6Options(t *testing.T) {
	sc := &scenario.Scenario{
		Name:   "k6opts",
		Broker: scenario.Broker{Type: "nats"},
		Cells: []scenario.Cell{
			{ID: "c1", SizeLabel: "1KB", Rate: 500, Batch: 1, Producers: 1, Consumers: 1, Duration: 2 * time.Second, Drain: time.Second},
			{ID: "c2", SizeLabel: "1KB", Max: true, Producers: 2, Consumers: 1, Duration: 2 * time.Second, Drain: time.Second},
		},
		Thresholds: []scenario.Threshold{{Metric: "mq_e2e_latency", Expressions: []scenario.Expression{{Source: "p(99) < 5ms", Expr: threshold.MustK6("p(99)<5"), AbortOnFail: true, DelayAbortEval: "2s"}}}},
	}
	raw, err := Build(sc, "id", 0).Options.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var o lib.Options
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("k6 does not decode the options: %v\n%s", err, raw)
	}
	want := map[string]string{"c1_publish": arrival.Type, "c1_consume": "per-vu-iterations", "c2_publish": "per-vu-iterations", "c2_consume": "per-vu-iterations"}
	if len(o.Scenarios) != len(want) {
		t.Errorf("k6 scenarios %v, want %v", o.Scenarios, want)
	}
	for name, typ := range want {
		if s, ok := o.Scenarios[name]; !ok || s.GetType() != typ {
			t.Errorf("scenario %s: %v, want a %s", name, s, typ)
		}
	}
	th, ok := o.Thresholds["mq_threshold_failed{threshold:mq_e2e_latency{cell:c1} p(99)<5}"]
	if !ok || len(th.Thresholds) != 1 || !th.Thresholds[0].AbortOnFail || th.Thresholds[0].Source != "value==0" {
		t.Errorf("verdict gauge threshold %+v, want value==0 with abortOnFail", th)
	}
	if d, ok := o.Thresholds["dropped_iterations{scenario:c1_publish}"]; !ok || d.Thresholds[0].AbortOnFail || d.Thresholds[0].Source != "count==0" {
		t.Errorf("dropped_iterations threshold %+v, want the short form count==0", d)
	}
	if len(o.SummaryTrendStats) != 11 || o.SummaryTrendStats[10] != "p(99.9999)" {
		t.Errorf("summaryTrendStats %v", o.SummaryTrendStats)
	}
}
