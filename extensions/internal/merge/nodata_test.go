package merge

import (
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// A merged cell that never started has no data, though its summed counters read 0: its
// thresholds fail as no data instead of passing "count == 0".
func TestMergedCellNotStartedHasNoData(t *testing.T) {
	s := &results.Summary{Scenario: "s", RunID: "r", Cells: []results.Cell{{ID: "c1", Status: "complete"}, {ID: "c2", Status: "not started"}}}
	for _, c := range []struct{ key, status string }{
		{"mq_publish_errors{cell:c1}", verdict.StatusPass},
		{"mq_publish_errors{cell:c2}", verdict.StatusNoData},
	} {
		th, err := verdict.New(c.key, "count==0", "count == 0", false)
		if err != nil {
			t.Fatal(err)
		}
		if got := th.Eval(NewData(s, nil), time.Minute).Status(); got != c.status {
			t.Errorf("%s: %s, want %s", c.key, got, c.status)
		}
	}
}
