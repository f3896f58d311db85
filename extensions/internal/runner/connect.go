package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Connect opens the broker once per destination, ensures each destination (and each
// subscription of it) exists, and opens every producer and consumer connection the scenario
// needs (the most any cell uses), then starts the consumers. An unreachable broker is returned
// as *driver.UnreachableError.
//
// Spreading: producer i and consumer i use destination i mod destinations; with fan-out each
// subscription has its own consumers (ids numbered across subscriptions: each one is a lane of
// the ledger), all of them owed every message. opts apply first, once (a second Connect does
// nothing).
func (r *Runner) Connect(ctx context.Context, opts ...Option) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.connected {
		return nil
	}
	r.apply(opts)
	w := r.sc.Workload
	for _, dest := range r.destinationNames() {
		cfg := driver.Config{URL: r.sc.Broker.URL, Destination: dest, Options: r.sc.Broker.Options,
			RunID: r.RunIDString(), Subscriptions: w.Subscriptions}
		drv, err := r.spec.Open(ctx, cfg)
		if err != nil {
			return err
		}
		r.drvs = append(r.drvs, drv)
		if err := drv.Setup(ctx); err != nil {
			return fmt.Errorf("%s: preparing destination %q: %w", r.sc.Broker.Type, dest, err)
		}
	}
	r.drv = r.drvs[0]
	r.startPartitions(ctx)
	if id, ok := r.drv.(driver.Identifier); ok {
		server := id.Server(ctx)
		r.server.Store(&server)
	}
	nPub, nCons := 0, 0
	for _, c := range r.cells {
		nPub = max(nPub, c.cell.Producers)
		nCons = max(nCons, c.cell.Consumers)
	}
	if sh := r.shared; sh != nil {
		if !sh.cfg.Produces {
			nPub = 0
		}
		if !sh.cfg.Consumes {
			nCons = 0
		}
		if err := r.startClock(); err != nil {
			return err
		}
	}
	if w.Pattern == scenario.PatternRequestReply {
		if err := r.connectRequestReply(ctx, nPub, nCons); err != nil {
			return err
		}
	} else if err := r.connectOneWay(ctx, nPub, nCons, max(w.Subscriptions, 1)); err != nil {
		return err
	}
	if len(r.cells) > 0 && r.holds(r.cells[0]) {
		r.holdConsumers() // the first cell is producer-only: hold them before it sends
	}
	r.connected = true
	r.started = time.Now()
	return nil
}

// connectOneWay opens subs × nCons consumers and nPub producers. The caller holds r.mu.
func (r *Runner) connectOneWay(ctx context.Context, nPub, nCons, subs int) error {
	for s := 0; s < subs; s++ {
		for j := 0; j < nCons; j++ {
			id := s*nCons + j
			drv := r.drvs[j%len(r.drvs)]
			var c driver.Consumer
			var err error
			if subs > 1 {
				fo, ok := drv.(driver.FanOut)
				if !ok {
					return fmt.Errorf("%s: this driver cannot open several subscriptions", r.sc.Broker.Type)
				}
				c, err = fo.NewSubscriber(ctx, s, id)
			} else {
				c, err = drv.NewConsumer(ctx, id)
			}
			if err != nil {
				return fmt.Errorf("%s: consumer %d (subscription %d): %w", r.sc.Broker.Type, id, s, err)
			}
			r.cons = append(r.cons, c)
			lane, sub := id, s // each consumer connection is one ordered lane
			if err := c.Start(ctx, func(v []byte, at time.Time) { r.deliverSub(v, at, lane, sub) }); err != nil {
				return fmt.Errorf("%s: starting consumer %d: %w", r.sc.Broker.Type, id, err)
			}
		}
	}
	for i := 0; i < nPub; i++ {
		p, err := r.drvs[i%len(r.drvs)].NewPublisher(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: producer %d: %w", r.sc.Broker.Type, i, err)
		}
		r.pubs = append(r.pubs, r.newProducer(p))
	}
	return nil
}

// destinationNames are the destinations the run spreads over (a distributed runner's own
// destination in place of the scenario's).
func (r *Runner) destinationNames() []string {
	base := r.sc.Workload.Destination
	if r.destination != "" {
		base = r.destination
	}
	return r.sc.Workload.DestinationNames(base)
}
