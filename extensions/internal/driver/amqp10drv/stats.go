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
	// artemis: with address plain, whether the broker answers Artemis's management
	// requests: unknown until the first sample, which decides (a broker that is not Artemis,
	// or a user without the manage permission, is not asked again).
	artemisTried, artemisAnswers bool
}

// BrokerStats, with address rabbitmq-v1, reads the queue's depth and its node's memory from
// RabbitMQ's management API (management_url) and the node's CPU from its Prometheus endpoint
// (prometheus_url), as the rabbitmq driver does (rabbitmgmt.Sampler). With address plain the
// backlog is the destination address's message count from Artemis's management address
// (artemismgmt.go), CPU and memory Unknown; a broker that does not answer the first request
// leaves every field Unknown. With address activemq (ActiveMQ Classic, whose figures are
// behind JMX / Jolokia) every field is Unknown.
func (d *amqpDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	d.stats.once.Do(func() {
		if d.mgmt != nil {
			d.stats.sampler = rabbitmgmt.NewSampler(d.mgmt, d.opts.ManagementURL != "", d.opts.PrometheusURL, d.host, d.queue)
		}
	})
	if d.opts.Address == AddressPlain {
		return d.artemisStats(ctx)
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

// artemisStats reads the backlog from Artemis's management address; the first request decides
// whether the broker is asked at all (a refusal then is no error: the figures are unknown).
func (d *amqpDriver) artemisStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	if d.stats.artemisTried && !d.stats.artemisAnswers {
		return st, nil
	}
	n, err := d.artemisMessageCount(ctx)
	first := !d.stats.artemisTried
	d.stats.artemisTried = true
	switch {
	case err == nil:
		d.stats.artemisAnswers = true
		st.Backlog = n
		return st, nil
	case first:
		return st, nil
	}
	return st, errors.New(d.scrub("amqp10: Artemis management: " + err.Error()))
}
