package plan

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/arrival"
	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// The k6 options a scenario turns into: cells back to back, thresholds per cell, the
// validity threshold, batch folded into the time unit.
func TestBuildOptions(t *testing.T) {
	sc := &scenario.Scenario{
		Name:   "opts",
		Broker: scenario.Broker{Type: "nats"},
		Cells: []scenario.Cell{
			{ID: "c1", SizeLabel: "256B", Rate: 1000, Batch: 1, Producers: 1, Warmup: time.Second, Duration: 3 * time.Second, Drain: time.Second},
			{ID: "big", SizeLabel: "1KB", Rate: 20000, Batch: 10, Producers: 25, Duration: 2 * time.Second, Drain: 500 * time.Millisecond,
				Thresholds: []scenario.Threshold{{Metric: "mq_publish_latency", Expressions: []scenario.Expression{{Source: "p(95) < 2ms", Expr: threshold.MustK6("p(95)<2"), AbortOnFail: true, DelayAbortEval: "5s"}}}}},
		},
		Thresholds: []scenario.Threshold{{Metric: "mq_e2e_latency", Expressions: []scenario.Expression{{Source: "p(99) < 5ms", Expr: threshold.MustK6("p(99)<5")}}}},
	}
	p := Build(sc, "abcd", 0)
	sources, verdicts := p.Sources, p.Verdicts
	scen := p.Options.Scenarios
	c1, big := scen["c1_publish"], scen["big_publish"]
	cases := []struct {
		name      string
		got, want any
	}{
		{"c1 executor", c1.Executor, arrival.Type},
		{"c1 time unit (batch 1)", c1.TimeUnit, "1000ms"},
		{"c1 duration = warmup + duration", c1.Duration, "4000ms"},
		{"c1 starts at 0", c1.StartTime, "0ms"},
		{"big time unit (batch 10)", big.TimeUnit, "10000ms"},
		{"big starts after c1 + drain + gap", big.StartTime, "6000ms"},
		{"big consumer lasts warmup+duration+drain+10s", scen["big_consume"].MaxDuration, "12500ms"},
		// The run's tags too, which `k6 run --tag` would otherwise strip (it replaces options.tags).
		{"c1 tags", c1.Tags, map[string]string{"cell": "c1", "size": "256B", "rate": "1000", "broker": "nats", "mq_scenario": "opts", "testid": "opts-abcd"}},
	}
	for _, c := range cases {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	th := p.Options.Thresholds
	// mqbench's metrics are judged by mqbench; k6 judges each verdict's gauge (value==0), so
	// abortOnFail and delayAbortEval ride on it. k6's own metrics stay with k6.
	wantTh := map[string][]Threshold{
		"mq_threshold_failed{threshold:mq_e2e_latency{cell:c1} p(99)<5}":      {{Expr: threshold.MustK6("value==0")}},
		"mq_threshold_failed{threshold:mq_e2e_latency{cell:big} p(99)<5}":     {{Expr: threshold.MustK6("value==0")}},
		"mq_threshold_failed{threshold:mq_publish_latency{cell:big} p(95)<2}": {{Expr: threshold.MustK6("value==0"), AbortOnFail: true, DelayAbortEval: "5s"}},
		"dropped_iterations{scenario:c1_publish}":                             {{Expr: threshold.MustK6("count==0")}},
		"dropped_iterations{scenario:big_publish}":                            {{Expr: threshold.MustK6("count==0")}},
	}
	if !reflect.DeepEqual(th, wantTh) {
		t.Errorf("thresholds:\n got %v\nwant %v", th, wantTh)
	}
	if len(sources) != 0 {
		t.Errorf("k6-judged threshold sources %+v, want none (dropped_iterations needs none)", sources)
	}
	if len(verdicts) != 3 || verdicts[0].Source != "p(99) < 5ms" || verdicts[0].Cell != "c1" || !verdicts[2].Time || !verdicts[2].AbortOnFail {
		t.Errorf("verdicts %+v", verdicts)
	}
	sc.Validity.AllowDroppedIterations = true
	if got := Build(sc, "abcd", 0).Options.Thresholds["dropped_iterations{scenario:c1_publish}"]; !reflect.DeepEqual(got, []Threshold{{Expr: threshold.MustK6("count>=0")}}) {
		t.Errorf("allow_dropped_iterations: threshold %v, want the never-failing count>=0 that keeps the count", got)
	}
}

func TestVUBudget(t *testing.T) {
	cases := []struct {
		cell        scenario.Cell
		pre, maxVUs int
	}{
		{scenario.Cell{Rate: 1, Batch: 1}, 3, 12},
		{scenario.Cell{Rate: 100, Batch: 1}, 102, 408},
		{scenario.Cell{Rate: 500, Batch: 1}, 502, 2008}, // the quickstart's c1: a second parked
		{scenario.Cell{Rate: 1000, Batch: 1}, 1000, 4000},
		{scenario.Cell{Rate: 1000, Batch: 1000}, 3, 12},
		{scenario.Cell{Rate: 3000, Batch: 1}, 1000, 4000},
		{scenario.Cell{Rate: 20000, Batch: 10}, 1000, 4000},
		{scenario.Cell{Rate: 100000, Batch: 1}, 1000, 4000},
		{scenario.Cell{Rate: 3000, Batch: 1, VUs: 10, MaxVUs: 20}, 10, 20},
		{scenario.Cell{Rate: 3000, Batch: 1, VUs: 300}, 300, 4000},   // max_vus unset: the derived maximum stays
		{scenario.Cell{Rate: 3000, Batch: 1, VUs: 4500}, 4500, 4500}, // max_vus never below vus
	}
	for _, c := range cases {
		pre, maxVUs := VUBudget(c.cell)
		if pre != c.pre || maxVUs != c.maxVUs {
			t.Errorf("%+v: got %d/%d, want %d/%d", c.cell, pre, maxVUs, c.pre, c.maxVUs)
		}
	}
}

// Durable configurations fail a run that loses a message unless the scenario says otherwise.
func TestDurableDefaultsToNoLoss(t *testing.T) {
	js := &natsdrv.Options{Mode: "jetstream"}
	js.Defaults()
	cell := scenario.Cell{ID: "c1", Rate: 10, Batch: 1, Duration: time.Second, Consumers: 1}
	cases := []struct {
		name string
		opts any
		own  []scenario.Threshold
		want []string
	}{
		{"jetstream gets the default", js, nil, []string{"count==0"}},
		{"core does not", &natsdrv.Options{Mode: "core"}, nil, nil},
		{"the scenario's own threshold wins", js, []scenario.Threshold{{Metric: "mq_messages_lost", Expressions: []scenario.Expression{{Expr: threshold.MustK6("count<10")}}}}, []string{"count<10"}},
	}
	for _, c := range cases {
		sc := &scenario.Scenario{Name: "d", Broker: scenario.Broker{Type: "nats", Options: c.opts}, Cells: []scenario.Cell{cell}, Thresholds: c.own}
		var got []string
		for _, v := range Build(sc, "x", 0).Verdicts {
			if v.Key == "mq_messages_lost{cell:c1}" {
				got = append(got, v.K6Expr)
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// The cell of a k6 threshold key, from its cell filter or from a cell's k6 scenario name.
func TestCellOfKey(t *testing.T) {
	for key, want := range map[string]string{
		"mq_e2e_latency{cell:c1}":                    "c1",
		"dropped_iterations{scenario:big_publish}":   "big",
		"iteration_duration{scenario:c2_consume}":    "c2",
		"mq_e2e_latency{size:1KB}":                   "",
		"mq_e2e_latency":                             "",
		"mq_e2e_latency{size:1KB,cell:my_publisher}": "my_publisher",
	} {
		if got := CellOfKey(key); got != want {
			t.Errorf("CellOfKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// The default no-loss threshold judges lost only: unconfirmed sends (their outcome unknown
// at the drain's end) and held messages (the broker still has them) never fail a run by
// default, while a scenario may put its own thresholds on them.
func TestDefaultJudgesLostOnly(t *testing.T) {
	js := &natsdrv.Options{Mode: "jetstream"}
	js.Defaults()
	cell := scenario.Cell{ID: "c1", Rate: 10, Batch: 1, Duration: time.Second, Consumers: 1}
	ledgerKeys := func(own []scenario.Threshold) []string {
		sc := &scenario.Scenario{Name: "d", Broker: scenario.Broker{Type: "nats", Options: js}, Cells: []scenario.Cell{cell}, Thresholds: own}
		var got []string
		for _, v := range Build(sc, "x", 0).Verdicts {
			for _, m := range []string{catalog.MessagesLost, catalog.MessagesUnconfirmed, catalog.MessagesHeld} {
				if strings.HasPrefix(v.Key, m+"{") || v.Key == m {
					got = append(got, v.Key+" "+v.K6Expr)
				}
			}
		}
		return got
	}
	if got, want := ledgerKeys(nil), []string{"mq_messages_lost{cell:c1} count==0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("defaults: got %v, want %v", got, want)
	}
	own := []scenario.Threshold{
		{Metric: catalog.MessagesUnconfirmed, Expressions: []scenario.Expression{{Expr: threshold.MustK6("count<5")}}},
		{Metric: catalog.MessagesHeld, Expressions: []scenario.Expression{{Expr: threshold.MustK6("count==0")}}},
	}
	got := ledgerKeys(own)
	want := []string{"mq_messages_lost{cell:c1} count==0", "mq_messages_unconfirmed{cell:c1} count<5", "mq_messages_held{cell:c1} count==0"}
	sort.Strings(got)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the scenario's thresholds: got %v, want %v", got, want)
	}
}
