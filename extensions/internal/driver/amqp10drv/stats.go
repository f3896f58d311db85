package amqp10drv

import (
	"context"
	"errors"
	"sync"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

var _ driver.BrokerStats = (*amqpDriver)(nil)

// depthTries is how many failed depth requests end the sampling of a broker that never
// answered one.
const depthTries = 3

// statsState is the broker-stats sampler, made on first use (it keeps the previous CPU
// sample and which optional endpoints answer).
type statsState struct {
	once    sync.Once
	sampler *rabbitmgmt.Sampler // nil: not RabbitMQ (address other than rabbitmq-v1)
	// depth, with address plain or activemq: whether the broker answered one of depth's
	// requests, and how many failed before it did (see depthStats).
	depthAnswers bool
	depthFails   int
}

// BrokerStats, with address rabbitmq-v1, reads the queue's depth and its node's memory from
// RabbitMQ's management API (management_url) and the node's CPU from its Prometheus endpoint
// (prometheus_url), as the rabbitmq driver does (rabbitmgmt.Sampler). With address plain or
// activemq the backlog is the destination's depth (depth: Artemis's management address, the
// address's message count; ActiveMQ Classic's statistics plugin, the queue's size), CPU and
// memory Unknown (behind JMX); a broker that does not answer the first request leaves every
// field Unknown.
func (d *amqpDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	d.stats.once.Do(func() {
		if d.mgmt != nil {
			d.stats.sampler = rabbitmgmt.NewSampler(d.mgmt, d.opts.ManagementURL != "", d.opts.PrometheusURL, d.host, d.queue)
		}
	})
	if d.opts.Address == AddressPlain || d.opts.Address == AddressActiveMQ {
		return d.depthStats(ctx)
	}
	if d.stats.sampler == nil {
		return driver.UnknownStats(), nil
	}
	st, err := d.stats.sampler.Sample(ctx)
	if err != nil {
		err = errors.New(d.scrub(err.Error()))
	}
	return st, err
}

// depthStats reads the backlog with depth. Until the broker has answered once, a failed
// request is no error (the figure is unknown) and after depthTries of them it is not asked
// again: a user without Artemis's manage permission, or a Classic broker without the
// statistics plugin, which never answers. One slow answer at a busy start does not end the
// sampling (it once did, for the whole run).
func (d *amqpDriver) depthStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	if !d.stats.depthAnswers && d.stats.depthFails >= depthTries {
		return st, nil
	}
	n, known, err := d.depth(ctx)
	switch {
	case !known:
		d.stats.depthFails = depthTries
		return st, nil
	case err == nil:
		d.stats.depthAnswers = true
		st.Backlog = n
		return st, nil
	case !d.stats.depthAnswers:
		d.stats.depthFails++
		return st, nil
	}
	return st, err
}
