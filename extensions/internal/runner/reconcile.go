package runner

import (
	"context"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
)

// Reconciling the ledger with the broker. A message the broker acknowledged and still holds
// for the run's consumers when the drain ends (not delivered yet, or delivered and not
// settled, due again) is late, not lost. Where the driver reads the broker's backlog
// (driver.BrokerStats), it is read once as the cell closes and up to that many of the
// ledger's losses are reported as held instead, with what the consumers took from the broker
// between the freeze and the read (ledger.SetBrokerBacklog). A driver that reads its backlog
// at the instant (driver.BacklogReader) is asked that way; the others' BrokerStats backlog may
// be a sample the broker refreshed seconds earlier. A read that fails, times out or does not
// know the backlog leaves the losses as they are: it can only ever excuse a loss the broker
// vouches for.

// reconcileTimeout bounds the read: it holds the cell's end, so it is kept short.
var reconcileTimeout = 2 * time.Second

// reconcile reads the broker's backlog once and lends it to the ledgers in turn (a
// consume-only cell closes several: the backlog is the destination's, shared by them all).
// Nothing is read when no ledger has a loss to reconcile.
func (r *Runner) reconcile(ls ...*ledger.Ledger) {
	lossy := false
	for _, l := range ls {
		lossy = lossy || l.Tally().Lost > 0
	}
	if !lossy {
		return
	}
	left, ok := r.brokerBacklog()
	if !ok {
		return
	}
	for _, l := range ls {
		l.SetBrokerBacklog(left)
		// Held may include what the consumers took after the freeze (not in left).
		left = max(0, left-int64(l.Tally().Held))
	}
}

// brokerBacklog asks the broker what it holds for the run's consumers now.
func (r *Runner) brokerBacklog() (int64, bool) {
	r.mu.Lock()
	drvs := r.drvs
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), reconcileTimeout)
	defer cancel()
	if n, ok, exact := readBacklogs(ctx, drvs); exact {
		return n, ok
	}
	bs, ok := brokerStatsOf(drvs)
	if !ok {
		return 0, false
	}
	r.statsMu.Lock() // drivers are asked from one goroutine at a time (driver.BrokerStats)
	st, err := bs.BrokerStats(ctx)
	r.statsMu.Unlock()
	if err != nil || st.Backlog < 0 {
		return 0, false
	}
	return st.Backlog, true
}

// readBacklogs sums every destination's exact backlog (driver.BacklogReader); exact is false
// when a driver has no such read, ok false when one failed or does not know (no partial sum,
// which would read as a smaller backlog, and no stale sample instead: it could excuse a loss
// the broker no longer vouches for). Not under statsMu: the read must not wait for a
// BrokerStats sample under way, and may run beside one.
func readBacklogs(ctx context.Context, drvs []driver.Driver) (n int64, ok, exact bool) {
	if len(drvs) == 0 {
		return 0, false, false
	}
	for _, d := range drvs {
		if _, is := d.(driver.BacklogReader); !is {
			return 0, false, false
		}
	}
	for _, d := range drvs {
		b, err := d.(driver.BacklogReader).ReadBacklog(ctx)
		if err != nil || b < 0 {
			return 0, false, true
		}
		n += b
	}
	return n, true, true
}
