package report

import (
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// How the reports show thresholds and cells with no data: never as a pass. A gate must not
// pass what it did not measure (a metric the broker does not produce, a cell that never ran).

// thresholdBadge is a threshold's class and label in report.html.
func thresholdBadge(t results.Threshold) (cls, label string) {
	switch t.State() {
	case results.StatusPass:
		return "pass", "pass"
	case results.StatusNoData:
		return "fail", "no data"
	}
	return "fail", "FAIL"
}

// cellBadge is a cell's class and label in report.html: no data for a cell that never
// started (it passed nothing), pass only when every threshold of a cell that ran passed.
func cellBadge(s *results.Summary, c *results.Cell) (cls, label string) {
	switch {
	case c.Status == "not started":
		return "fail", "no data"
	case !cellOK(s, c):
		return "fail", "FAIL"
	}
	for _, t := range s.CellThresholds(c) {
		if t.State() != results.StatusPass {
			return "fail", "FAIL"
		}
	}
	return "pass", "pass"
}

// countNoData counts the run's thresholds with no data.
func countNoData(s *results.Summary) int {
	n := 0
	for _, t := range s.AllThresholds() {
		if t.State() == results.StatusNoData {
			n++
		}
	}
	return n
}

// noDataText is summary.txt's reason for a failed run with thresholds that measured nothing.
func noDataText(s *results.Summary) string {
	n := countNoData(s)
	what := strconv.Itoa(n) + " threshold with no data"
	if n != 1 {
		what = strconv.Itoa(n) + " thresholds with no data"
	}
	for _, t := range s.AllThresholds() {
		if t.State() == results.StatusFail {
			return "thresholds crossed; " + what
		}
	}
	return what
}

// cellOK reports whether every threshold of the cell passed.
func cellOK(s *results.Summary, c *results.Cell) bool {
	for _, t := range s.CellThresholds(c) {
		if !t.OK {
			return false
		}
	}
	return true
}
