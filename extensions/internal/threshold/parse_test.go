package threshold

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
)

func TestParseExpr(t *testing.T) {
	e2e, _ := catalog.Find("mq_e2e_latency")
	lost, _ := catalog.Find("mq_messages_lost")
	dropped, _ := catalog.Find("dropped_iterations")
	for _, c := range []struct {
		src  string
		m    catalog.Metric
		want string
		err  string
	}{
		{"p(99) < 250us", e2e, "p(99)<0.25", ""},
		{"p(99.9999)<=1s", e2e, "p(99.9999)<=1000", ""},
		{"p( 90 ) > 0.5µs", e2e, "p(90)>0.0005", ""},
		{"med != 2μs", e2e, "med!=0.002", ""},
		{"max < 1m", e2e, "max<60000", ""},
		{"avg < 1500ns", e2e, "avg<0.0015", ""},
		{"min >= 3", e2e, "min>=3", ""},
		{"count === 0", lost, "count===0", ""},
		{"rate < 0.5", lost, "rate<0.5", ""},
		{"p(0) < 1ms", e2e, "", "between 0 and 100"},
		{"p(99.) < 1ms", e2e, "", "between 0 and 100"},
		{"p(99 < 1ms", e2e, "", "expected AGGREGATION OPERATOR VALUE"},
		{"rate < 1", e2e, "", `aggregation "rate" does not apply to mq_e2e_latency, a trend metric (valid: avg, min, max, med, p(N)); messages per second are a rate on a counter`},
		{"count < 1s", lost, "", `unit "s" does not apply`},
		{"count == 0", dropped, "count==0", ""},
		{"rate < 1", dropped, "", `"rate < 1" cannot be judged per cell: dropped_iterations is k6's, and k6 would divide its count by the whole test run's duration`},
		{"p(99) < fast", e2e, "", "expected a number"},
		{"p(99) = 1", e2e, "", "expected an operator"},
		{"< 1", e2e, "", "expected AGGREGATION OPERATOR VALUE"},
	} {
		e, msg := Parse(c.src, c.m)
		got := ""
		if msg == "" {
			got = e.K6()
		}
		if got != c.want || (c.err == "") != (msg == "") || !strings.Contains(msg, c.err) {
			t.Errorf("Parse(%q) = %q, %q; want %q, %q", c.src, got, msg, c.want, c.err)
		}
	}
}
