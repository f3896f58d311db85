package runner

import (
	"context"
	"time"
)

// lateGrace is how long Close keeps the consumers open, after the acknowledgements are in,
// for messages the broker confirmed but the consumers have not received yet.
const lateGrace = closeGrace

// awaitLate keeps the consumers open while a finalized cell's ledger still counts a
// confirmed message as not received, for up to lateGrace. A broker that stalled across a
// cell's drain confirms and delivers late: what arrives now is held, not lost (the ledger),
// and closing the consumers as the last confirmation came back would call lost what was
// still on its way (JetStream paused past the drain: 183 of 684 such messages).
func (r *Runner) awaitLate(ctx context.Context) {
	until := time.Now().Add(lateGrace)
	for r.owedLate() && time.Now().Before(until) && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
}

// owedLate reports whether a finalized cell's ledger has a confirmed message nobody received.
// A runner of a shared destination cannot tell: another runner's consumers may have taken it
// (the merge judges), so it does not wait.
func (r *Runner) owedLate() bool {
	if r.shared != nil {
		return false
	}
	for _, c := range r.cells {
		if c.ledger.Frozen() && c.ledger.Tally().Lost > 0 {
			return true
		}
	}
	return false
}
