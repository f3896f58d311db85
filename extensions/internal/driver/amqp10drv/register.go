package amqp10drv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("amqp10", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "amqp://guest:guest@127.0.0.1:5672",
		CheckURL:         checkURL,
		CheckDestination: checkDestination,
		// RabbitMQ's management API tells where a /queue/<name> lives.
		Topology: func(o driver.Options) bool { return o.(*Options).Address == AddressRabbitV1 },
		// Queues keep messages; a subscriber that stops granting credit is buffered for by
		// the broker (queue, multicast subscription queue).
		Holds:            func(driver.Options) bool { return true },
		PromisesDelivery: promisesDelivery,
	})
}
