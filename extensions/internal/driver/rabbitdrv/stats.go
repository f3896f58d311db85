package rabbitdrv

import (
	"context"
	"errors"
	"sync"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

var _ driver.BrokerStats = (*rabbitDriver)(nil)

// statsState is the broker-stats sampler, made on first use (it keeps the previous CPU
// sample and which optional endpoints answer).
type statsState struct {
	once    sync.Once
	sampler *rabbitmgmt.Sampler
}

// BrokerStats reads the queue's depth: its ready messages now (readyNow, a passive
// queue.declare) plus messages_unacknowledged from the management API (management_url), the
// only source of that count, refreshed every collect_statistics_interval but bounded by the
// consumers' prefetch; Unknown for a stream queue, whose consumers each keep their own
// offset, and when the management API has no figure. Its node's mem_used comes from the
// management API too (nothing else gives it), the node's CPU from the Prometheus endpoint
// (prometheus_url). See rabbitmgmt.Sampler. The reconciliation reads ReadBacklog instead.
func (d *rabbitDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	d.stats.once.Do(func() {
		m := rabbitmgmt.New(d.opts.ManagementURL, d.uri.Host, d.uri.Username, d.uri.Password)
		d.stats.sampler = rabbitmgmt.NewSampler(m, d.opts.ManagementURL != "", d.opts.PrometheusURL, d.uri.Host, d.queue)
		d.stats.sampler.Ready = func(ctx context.Context) (int64, error) { return d.readyNow(ctx, false, d.queue) }
	})
	st, err := d.stats.sampler.Sample(ctx)
	if err != nil {
		// Broker error texts may quote what was sent; the password never.
		err = errors.New(d.scrub(err.Error()))
	}
	return st, err
}
