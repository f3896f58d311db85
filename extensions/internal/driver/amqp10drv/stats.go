package amqp10drv

import (
	"context"
	"errors"
	"sync"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

var _ driver.BrokerStats = (*amqpDriver)(nil)

// statsState is the broker-stats sampler, made on first use (it keeps the previous CPU
// sample and which optional endpoints answer).
type statsState struct {
	once    sync.Once
	sampler *rabbitmgmt.Sampler // nil: not RabbitMQ (address other than rabbitmq-v1)
}

// BrokerStats, with address rabbitmq-v1, reads the queue's depth and its node's memory from
// RabbitMQ's management API (management_url) and the node's CPU from its Prometheus endpoint
// (prometheus_url), as the rabbitmq driver does (rabbitmgmt.Sampler). With other addresses
// (Artemis, ActiveMQ, whose figures are behind JMX / Jolokia) every field is Unknown.
func (d *amqpDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	d.stats.once.Do(func() {
		if d.mgmt != nil {
			d.stats.sampler = rabbitmgmt.NewSampler(d.mgmt, d.opts.ManagementURL != "", d.opts.PrometheusURL, d.host, d.queue)
		}
	})
	if d.stats.sampler == nil {
		return driver.UnknownStats(), nil
	}
	st, err := d.stats.sampler.Sample(ctx)
	if err != nil {
		err = errors.New(d.scrub(err.Error()))
	}
	return st, err
}
