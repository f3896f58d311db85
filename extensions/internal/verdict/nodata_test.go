package verdict

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// twoCells: c1 started and measured 100 e2e latencies of 1 ms, c2 (size 1MB) never started,
// yet its counters read 0 like a started cell's would.
type twoCells struct{ e2e *hist.Hist }

func (s twoCells) CellTags() []map[string]string {
	return []map[string]string{{"cell": "c1", "size": "1KB", "rate": "100"}, {"cell": "c2", "size": "1MB", "rate": "1"}}
}
func (s twoCells) Trend(cell int, m string) *hist.Hist {
	switch {
	case cell == 0 && m == "mq_e2e_latency":
		return s.e2e
	case m == "mq_e2e_latency" || m == "mq_publish_latency":
		return hist.New() // recorded nothing: publish latency without acknowledgements, c2
	}
	return nil // not a trend
}
func (s twoCells) Count(int, string) (float64, bool) { return 0, true }
func (s twoCells) Gauge(int, string) (float64, float64, float64, bool) {
	return 0, 0, 0, false
}
func (s twoCells) CellStarted(cell int) bool { return cell == 0 }

var _ Starter = twoCells{}

// No data is not a pass: a threshold whose cells recorded nothing, whose filter selects no
// cell, or whose only cell never started, is "no data" and fails (it passed as k6's empty 0).
func TestNoDataIsNotAPass(t *testing.T) {
	h := hist.New()
	for range 100 {
		h.Record(int64(time.Millisecond))
	}
	src := twoCells{h}
	for _, c := range []struct {
		key, expr string
		status    string
	}{
		{"mq_e2e_latency{cell:c1}", "p(99)<20", StatusPass},
		{"mq_e2e_latency{cell:c1}", "p(99)<0.5", StatusFail},
		{"mq_publish_latency{cell:c1}", "p(99)<20", StatusNoData}, // no acknowledgement: nothing measured
		{"mq_e2e_latency{cell:c9}", "p(99)<20", StatusNoData},     // no such cell
		{"mq_e2e_latency{size:2KB}", "p(99)<20", StatusNoData},    // no such size
		{"mq_publish_errors{cell:c2}", "count==0", StatusNoData},  // never started: its 0 is no count
		{"mq_publish_errors{cell:c1}", "count==0", StatusPass},
		{"mq_publish_errors", "count==0", StatusPass}, // over both: c1 counted
		{"mq_backlog{cell:c1}", "value<10", StatusNoData},
	} {
		th, err := New(c.key, c.expr, "", true)
		if err != nil {
			t.Fatal(err)
		}
		r := th.Eval(src, time.Minute)
		if r.Status() != c.status || r.OK != (c.status == StatusPass) {
			t.Errorf("%s %s: status %q ok %v; want %q", c.key, c.expr, r.Status(), r.OK, c.status)
		}
	}
}
