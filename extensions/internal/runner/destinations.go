package runner

import (
	"sync/atomic"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// destCounts: what each destination's consumers received of a cell's measured messages, when
// the run spreads over several destinations (workload.destinations): the skew a key
// distribution puts on them where the broker routes by key (a consistent-hash exchange). Nil
// for one destination.
type destCounts []atomic.Uint64

// newDestCounts returns counters for n destinations (nil for one).
func newDestCounts(n int) destCounts {
	if n <= 1 {
		return nil
	}
	return make(destCounts, n)
}

// add counts a message consumer lane received: consumer j of each subscription reads
// destination j mod n (connectOneWay).
func (d destCounts) add(lane, consumers int) {
	if d == nil || consumers < 1 {
		return
	}
	d[(lane%consumers)%len(d)].Add(1)
}

// report is each destination's count and share, names as the run spread them.
func (d destCounts) report(names []string) []results.DestinationCount {
	if d == nil || len(names) != len(d) {
		return nil
	}
	out := make([]results.DestinationCount, len(d))
	var total uint64
	for i := range d {
		out[i] = results.DestinationCount{Destination: names[i], Received: d[i].Load()}
		total += out[i].Received
	}
	for i := range out {
		if total > 0 {
			out[i].SharePct = 100 * float64(out[i].Received) / float64(total)
		}
	}
	return out
}
