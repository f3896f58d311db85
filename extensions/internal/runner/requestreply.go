package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// connectRequestReply opens a request-reply run: nCons responders, which echo every request
// to its reply address, then nPub requesters, whose Send is an ordinary publish (open model,
// on the arrival-rate schedule) and whose replies come back with the request's header, so
// deliver measures the round trip as the end-to-end latency and the ledger counts replies
// like deliveries. The caller holds r.mu.
func (r *Runner) connectRequestReply(ctx context.Context, nPub, nCons int) error {
	rr, ok := r.drv.(driver.RequestReply)
	if !ok {
		return fmt.Errorf("%s: this driver cannot run request-reply", r.sc.Broker.Type)
	}
	for i := 0; i < nCons; i++ {
		resp, err := rr.NewResponder(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: responder %d: %w", r.sc.Broker.Type, i, err)
		}
		r.responders = append(r.responders, resp)
		if err := resp.Start(ctx); err != nil {
			return fmt.Errorf("%s: starting responder %d: %w", r.sc.Broker.Type, i, err)
		}
	}
	for i := 0; i < nPub; i++ {
		// A requester's replies carry only its own requests: producer i's sequence is one
		// ordered lane whichever responder answered.
		p, err := rr.NewRequester(ctx, i, func(v []byte, at time.Time) { r.deliver(v, at, 0) })
		if err != nil {
			return fmt.Errorf("%s: requester %d: %w", r.sc.Broker.Type, i, err)
		}
		r.pubs = append(r.pubs, r.newProducer(p))
	}
	return nil
}
