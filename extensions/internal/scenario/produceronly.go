package scenario

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
)

// receivedMetrics are judged on what consumers received: a producer-only run
// (workload.consumers: 0) has nothing to judge them on.
var receivedMetrics = []string{catalog.E2ELatency, catalog.E2EIntendedLatency, catalog.MessagesReceived,
	catalog.BytesReceived, catalog.MessagesLost, catalog.MessagesUnconfirmed, catalog.MessagesHeld, catalog.MessagesDuplicated, catalog.MessagesReordered}

// checkProducerOnly refuses thresholds a run without consumers cannot judge (they would pass
// on no data, k6's rule for an empty metric): its messages are unconsumed, neither received
// nor lost.
func (d *decoder) checkProducerOnly(s *Scenario) {
	if s.Workload.Consumers != 0 || !d.set("workload.consumers") {
		return
	}
	const why = "workload.consumers is 0 (producer only): nothing is received, so %s has nothing to judge (its messages are unconsumed, not lost)"
	d.receivedThresholds(s.Thresholds, "thresholds", why)
	for i, c := range s.Cells {
		d.receivedThresholds(c.Thresholds, fmt.Sprintf("matrix[%d].thresholds", i), why)
	}
}

// receivedThresholds refuses thresholds on what consumers receive, with why (a format taking
// the metric's name).
func (d *decoder) receivedThresholds(ts []Threshold, at, why string) {
	for _, t := range ts {
		name := t.Metric
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
		}
		for _, m := range receivedMetrics {
			if name == m {
				d.errorf(at+"."+t.Metric, why, m)
			}
		}
	}
}
