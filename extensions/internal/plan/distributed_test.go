package plan

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// A runner's options: every publish scenario's VU budget a multiple of N (k6 splits an
// arrival rate by maxVUs, so only then does each runner take exactly rate/N), one consumer VU
// per runner, no verdict of its own.
func TestDistributedOptions(t *testing.T) {
	sc := &scenario.Scenario{Name: "d", Broker: scenario.Broker{Type: "nats"},
		Thresholds: []scenario.Threshold{{Metric: "mq_e2e_latency", Expressions: []scenario.Expression{{Source: "p(99) < 5ms", Expr: threshold.MustK6("p(99)<5")}}}},
		Cells: []scenario.Cell{
			{ID: "c1", Rate: 300, Batch: 1, Duration: time.Second, Producers: 1},
			{ID: "c2", Rate: 20000, Batch: 10, Duration: time.Second, Producers: 1},
			{ID: "c3", Rate: 10, Batch: 1, Duration: time.Second, VUs: 1, MaxVUs: 1, Producers: 1},
		}}
	for _, n := range []int{2, 3, 7} {
		p := Build(sc, "x", n)
		scen, verdicts := p.Options.Scenarios, p.Verdicts
		for _, c := range sc.Cells {
			pub := scen[c.ID+"_publish"]
			pre, maxv := pub.PreAllocatedVUs, pub.MaxVUs
			if pre%n != 0 || maxv%n != 0 || pre < n || maxv < pre {
				t.Errorf("N=%d %s: preAllocatedVUs %d, maxVUs %d: want multiples of %d", n, c.ID, pre, maxv, n)
			}
			if v := scen[c.ID+"_consume"].VUs; v != n {
				t.Errorf("N=%d %s: consumer VUs %v, want one per runner", n, c.ID, v)
			}
		}
		for key := range p.Options.Thresholds {
			if strings.HasPrefix(key, "mq_threshold_failed") {
				t.Errorf("N=%d: a runner judges %s itself; the merge should", n, key)
			}
		}
		if len(verdicts) != 3 {
			t.Errorf("N=%d: %d verdicts kept for the merge, want 3", n, len(verdicts))
		}
	}
}

func TestReadDistributedRefuses(t *testing.T) {
	t.Setenv("MQ_RUNNERS", "3")
	t.Setenv("MQ_RUN_ID", "run-1")
	abort := []scenario.Threshold{{Metric: "mq_e2e_latency", Expressions: []scenario.Expression{{AbortOnFail: true}}}}
	iters := []scenario.Threshold{{Metric: "iteration_duration", Expressions: []scenario.Expression{{}}}}
	for _, c := range []struct {
		name string
		sc   scenario.Scenario
		want string
	}{
		{"fine", scenario.Scenario{Broker: scenario.Broker{URL: "nats://h:4222"}}, ""},
		{"embedded", scenario.Scenario{Broker: scenario.Broker{URL: "embedded"}}, "embedded cannot serve a distributed run"},
		{"abort_on_fail", scenario.Scenario{Broker: scenario.Broker{URL: "nats://h:4222"}, Thresholds: abort}, "abort_on_fail cannot work"},
		{"iteration_duration", scenario.Scenario{Broker: scenario.Broker{URL: "nats://h:4222"}, Thresholds: iters}, "cannot be merged"},
		{"faults", scenario.Scenario{Broker: scenario.Broker{URL: "nats://h:4222"}, Faults: scenario.Faults{Schedule: []scenario.Fault{{Node: "leader"}}}}, "cannot inject faults"},
		{"roles that fit", roles(2, 1), ""},
		{"roles, some runners both", roles(1, 1), ""},
		{"more roles than runners", roles(2, 2), "is 4 roles for 3 runners"},
		{"no consumer runner", roles(3, 0), "leaves no consumer runner"},
		{"no producer runner", roles(0, 3), "leaves no producer runner"},
	} {
		d, errs := ReadDistributed(&c.sc, os.Getenv)
		got := strings.Join(errs, "; ")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: problems %q, want %q", c.name, got, c.want)
		}
		if d.Runners != 3 || d.RunID != "run-1" {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
	t.Setenv("MQ_RUN_ID", "")
	if _, errs := ReadDistributed(&scenario.Scenario{}, os.Getenv); len(errs) == 0 || !strings.Contains(errs[0], "MQ_RUN_ID") {
		t.Errorf("no run id accepted: %v", errs)
	}
}

// roles is a shared-destination scenario with p producer-only and c consumer-only runners.
func roles(p, c int) scenario.Scenario {
	return scenario.Scenario{Broker: scenario.Broker{URL: "nats://h:4222"}, Distributed: scenario.Distributed{Shared: true, Producers: p, Consumers: c}}
}

// Runners' roles, and the rate each producing runner takes: together the cell's rate.
func TestRoles(t *testing.T) {
	for _, c := range []struct {
		p, cons, n int
		want       string // per runner: P produce, C consume, B both
		num, den   int
	}{
		{2, 1, 3, "PPC", 3, 2},
		{0, 0, 3, "BBB", 1, 1},
		{1, 1, 3, "PCB", 3, 2},
		{0, 2, 3, "CCB", 3, 1},
		{3, 0, 4, "PPPB", 1, 1},
	} {
		sc := roles(c.p, c.cons)
		sc.Cells = []scenario.Cell{{ID: "c1", Rate: 1001, Batch: 2, Duration: time.Second, Producers: 1}}
		d := Distributed{Runners: c.n, Shared: true, Producers: c.p, Consumers: c.cons}
		got := ""
		for i := 1; i <= c.n; i++ {
			switch pr, co := d.Role(i); {
			case pr && co:
				got += "B"
			case pr:
				got += "P"
			default:
				got += "C"
			}
		}
		num, den := RateScale(&sc, c.n)
		if got != c.want || num != c.num || den != c.den {
			t.Errorf("producers %d consumers %d of %d: roles %s, scale %d/%d; want %s, %d/%d", c.p, c.cons, c.n, got, num, den, c.want, c.num, c.den)
		}
		e := Build(&sc, "x", c.n).Options.Scenarios["c1_publish"]
		// per producing runner: rate/timeUnit/N of the ticks = 1001/2 iterations/s over the producers
		perRunner := float64(e.Rate) / durSeconds(t, e.TimeUnit) / float64(c.n)
		if want := 1001.0 / 2 / float64(d.Producing()); perRunner < want*0.999999 || perRunner > want*1.000001 {
			t.Errorf("producers %d consumers %d of %d: %d per %s: %.3f iterations/s per producing runner, want %.3f", c.p, c.cons, c.n, e.Rate, e.TimeUnit, perRunner, want)
		}
	}
}

func durSeconds(t *testing.T, s string) float64 {
	d, err := time.ParseDuration(s)
	if err != nil {
		t.Fatal(err)
	}
	return d.Seconds()
}
