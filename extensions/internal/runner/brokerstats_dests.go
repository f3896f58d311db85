package runner

import (
	"context"
	"errors"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// destinationStats reads the broker's side of a run over several destinations
// (workload.destinations): each destination has its own driver, whose backlog is its own
// destination's; the run's backlog is their sum. CPU and memory are the broker process's, the
// same through every driver, so they come from the first destination's. Unknown when any
// destination's backlog is unknown (a partial sum would read as a smaller backlog).
type destinationStats []driver.BrokerStats

var _ driver.BrokerStats = destinationStats(nil)

// brokerStatsOf is what the cell's sampler asks: the one driver, or every destination's
// together; false when the driver cannot read the broker.
func brokerStatsOf(drvs []driver.Driver) (driver.BrokerStats, bool) {
	var all destinationStats
	for _, d := range drvs {
		bs, ok := d.(driver.BrokerStats)
		if !ok {
			return nil, false
		}
		all = append(all, bs)
	}
	if len(all) == 1 {
		return all[0], true
	}
	return all, len(all) > 0
}

func (ds destinationStats) BrokerStats(ctx context.Context) (driver.Stats, error) {
	var out driver.Stats
	var errs []error
	for i, bs := range ds {
		st, err := bs.BrokerStats(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		if i == 0 {
			out = st
			continue
		}
		if out.Backlog == driver.Unknown || st.Backlog == driver.Unknown {
			out.Backlog = driver.Unknown
		} else {
			out.Backlog += st.Backlog
		}
	}
	return out, errors.Join(errs...)
}
