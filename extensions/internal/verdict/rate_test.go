package verdict

import (
	"math"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// measuredCells: c1 and c2 (1KB) measured 5 s each, c3 is still warming up, c4 never
// started; the test run has lasted a minute.
type measuredCells struct{}

var measuredTags = []map[string]string{
	{"cell": "c1", "size": "1KB", "rate": "300"},
	{"cell": "c2", "size": "1KB", "rate": "100"},
	{"cell": "c3", "size": "2KB", "rate": "300"},
	{"cell": "c4", "size": "4KB", "rate": "300"},
}

func (measuredCells) CellTags() []map[string]string { return measuredTags }
func (measuredCells) Trend(int, string) *hist.Hist  { return nil }
func (measuredCells) Count(cell int, m string) (float64, bool) {
	if m == "mq_messages_lost" {
		return 3, cell == 0 // c2's ledger is not settled yet
	}
	return []float64{1500, 500, 0, 0}[cell], true
}
func (measuredCells) Gauge(int, string) (float64, float64, float64, bool) { return 0, 0, 0, false }
func (measuredCells) CellStarted(cell int) bool                           { return cell < 3 }
func (measuredCells) MeasuredTime(cell int) (time.Duration, bool) {
	if cell >= 2 {
		return 0, false
	}
	return 5 * time.Second, true
}

// A counter's rate is the cell's count over the cell's measured time, not over the test
// run's duration as k6 computes it (1500 messages in a 5 s window of a 60 s run: 300/s, not 25/s).
func TestCounterRateIsPerCell(t *testing.T) {
	for _, c := range []struct {
		key, expr string
		want      float64
		status    string
	}{
		{"mq_messages_received{cell:c1}", "rate>250", 300, StatusPass},
		{"mq_messages_received{cell:c1}", "rate<250", 300, StatusFail},
		{"mq_messages_received{cell:c2}", "rate>=100", 100, StatusPass},
		{"mq_messages_received{size:1KB}", "rate>250", 200, StatusFail}, // (1500+500) / (5 s + 5 s)
		{"mq_messages_received", "rate==200", 200, StatusPass},          // c3 warming up, c4 not started: not in it
		{"mq_messages_received{cell:c1}", "count==1500", 1500, StatusPass},
		{"mq_messages_received{cell:c3}", "rate>250", 0, StatusNoData}, // warming up: no rate yet, not a rate of 0
		{"mq_messages_received{cell:c4}", "rate>250", 0, StatusNoData}, // never started
		{"mq_messages_lost{cell:c1}", "rate<1", 0.6, StatusPass},
		{"mq_messages_lost{cell:c2}", "rate<1", 0, StatusNoData},  // not settled: unknown
		{"mq_messages_lost{size:1KB}", "rate<1", 0.6, StatusPass}, // c1 only: 3 over its 5 s
	} {
		th, err := New(c.key, c.expr, "", false)
		if err != nil {
			t.Fatal(err)
		}
		r := th.Eval(measuredCells{}, time.Minute)
		if r.Status() != c.status || (r.Measured && math.Abs(r.Value-c.want) > 1e-9) {
			t.Errorf("%s %s: %s, value %g; want %s, %g", c.key, c.expr, r.Status(), r.Value, c.status, c.want)
		}
	}
}

// A source that cannot tell a cell's measured time keeps k6's rule: count over the test run.
func TestCounterRateWithoutMeasuredTime(t *testing.T) {
	src := oneCell{h: hist.New(), counts: map[string]float64{"mq_messages_received": 1500}}
	th, err := New("mq_messages_received{cell:c1}", "rate>20", "", false)
	if err != nil {
		t.Fatal(err)
	}
	if r := th.Eval(src, time.Minute); !r.Measured || r.Value != 25 || !r.OK {
		t.Errorf("got %+v; want 25 (1500 over 60 s), pass", r)
	}
}
