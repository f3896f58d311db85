package rabbitdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("rabbitmq", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "amqp://guest:guest@127.0.0.1:5672/",
		CheckURL:         checkURL,
		CheckDestination: checkQueueName,
		Topology:         func(driver.Options) bool { return true }, // via the management API
		RequestReply:     requestReply,                              // direct reply-to; not on streams (reply.go)
		Holds:            func(driver.Options) bool { return true }, // queues, and streams for their consumer's offset
		FanOut:           fanOut,                                    // a queue per subscription; not streams (rabbit.go)
		PromisesDelivery: promisesDelivery,                          // durable.go
		HeaderStamp:      func(driver.Options) bool { return true }, // an entry of the headers table
	})
}
