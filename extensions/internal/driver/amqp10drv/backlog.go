package amqp10drv

import (
	"context"
	"fmt"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BacklogReader = (*amqpDriver)(nil)

// Brokers whose depth the driver reads, as they name themselves in the AMQP open frame's
// "product" property (the admin connection's): the address style does not tell them apart
// (address plain works on both).
const (
	productArtemis = "apache-activemq-artemis"
	productClassic = "ActiveMQ"
)

// product is the broker's "product" connection property ("" when it sends none).
func (d *amqpDriver) product() string {
	d.mu.Lock()
	conn := d.admin
	d.mu.Unlock()
	if conn == nil {
		return ""
	}
	p, _ := conn.Properties()["product"].(string)
	return p
}

// depth reads how many messages the destination queue holds that no consumer accepted yet:
// Artemis's management address (the address's messageCount) or ActiveMQ Classic's
// statistics plugin (the queue's size). Both count a message until a consumer accepts it:
// those waiting, those sent to a consumer under its link credit and still in the client's
// buffer, and the one its callback holds. known is false for another broker, and for a
// Classic topic (multicast).
func (d *amqpDriver) depth(ctx context.Context) (n int64, known bool, err error) {
	switch d.product() {
	case productArtemis:
		n, err = d.artemisMessageCount(ctx)
		if err != nil {
			err = fmt.Errorf("amqp10: read the depth of %s from Artemis's management address: %s", d.queue, d.scrub(err.Error()))
		}
		return n, true, err
	case productClassic:
		if d.opts.Routing == RoutingMulticast {
			return 0, false, nil // a topic: each subscriber's figures are its own
		}
		n, err = d.classicQueueSize(ctx)
		if err != nil {
			err = fmt.Errorf("amqp10: read the depth of %s from ActiveMQ's statistics plugin: %s", d.queue, d.scrub(err.Error()))
		}
		return n, true, err
	}
	return 0, false, nil
}

// ReadBacklog is what the broker holds for the run's consumers now, for the runner's
// reconciliation at the end of a cell's drain: the destination queue's depth read at the
// instant (depth), never below the truth, above it by at most the message each consumer's
// callback holds. Unknown with multicast routing (each consumer has its own subscription
// queue holding its own copy: a sum would count one message once per consumer), and on
// RabbitMQ (address rabbitmq-v1 and v2), whose AMQP 1.0 plugin tells no depth and whose
// management API figures are seconds stale.
func (d *amqpDriver) ReadBacklog(ctx context.Context) (int64, error) {
	if d.opts.Routing == RoutingMulticast || d.opts.Address == AddressRabbitV1 || d.opts.Address == AddressRabbitV2 {
		return driver.Unknown, nil
	}
	n, known, err := d.depth(ctx)
	switch {
	case err != nil:
		return driver.Unknown, err
	case !known:
		return driver.Unknown, nil
	}
	return n, nil
}
