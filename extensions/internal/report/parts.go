package report

import (
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// partRows is the table of what cells measured in parts: each size of a size mix and each
// named stage of a rate profile, with its end-to-end latencies (plain and from the intended
// send time); only the header when no cell has parts.
func partRows(s *results.Summary) [][]string {
	rows := [][]string{{"cell", "part", "share", "sent", "received", "e2e p50", "e2e p99", "e2e max", "intended p50", "intended p99"}}
	lat := func(st hist.Stats, key string) string {
		return orDash(st.Count > 0, func() string { return results.Micros(pct(st, key)) })
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		for _, k := range c.Sizes {
			rows = append(rows, []string{c.ID, "size " + k.Size, strconv.FormatFloat(k.SharePct, 'f', -1, 64) + "%", utoa(k.Sent), utoa(k.Received),
				lat(k.E2ELatency, "p50"), lat(k.E2ELatency, "p99"), orDash(k.E2ELatency.Count > 0, func() string { return results.Micros(k.E2ELatency.Max) }),
				lat(k.E2EIntendedLatency, "p50"), lat(k.E2EIntendedLatency, "p99")})
		}
		seen := map[string]bool{}
		for _, st := range c.Stages {
			if st.E2ELatency == nil || seen[st.Name] { // unnamed, or a name met before (bursts share one)
				continue
			}
			seen[st.Name] = true
			e, in := *st.E2ELatency, hist.Stats{}
			if st.E2EIntendedLatency != nil {
				in = *st.E2EIntendedLatency
			}
			rows = append(rows, []string{c.ID, "stage " + st.Name, "-", "-", itoa(e.Count),
				lat(e, "p50"), lat(e, "p99"), orDash(e.Count > 0, func() string { return results.Micros(e.Max) }), lat(in, "p50"), lat(in, "p99")})
		}
	}
	return rows
}
