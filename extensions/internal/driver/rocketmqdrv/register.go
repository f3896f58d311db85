package rocketmqdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("rocketmq", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "rocketmq://127.0.0.1:9976",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		// A topic is a log: the broker keeps every message until its retention (72 h by
		// default) and the consumer group's offset waits for readers.
		Holds:            func(driver.Options) bool { return true },
		FanOut:           func(driver.Options) bool { return true }, // a consumer group per subscription
		PromisesDelivery: promisesDelivery,
	})
}
