package redisdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("redis", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "redis://127.0.0.1:6379",
		CheckURL:         checkURL,
		CheckDestination: checkKey,
		// A stream keeps what its group has not read; pub/sub drops it.
		Holds: func(o driver.Options) bool { return o.(*Options).Mode == "streams" },
		// A consumer group per subscription; pub/sub cannot share a subscription's messages.
		FanOut:           fanOut,
		PromisesDelivery: promisesDelivery,
	})
}
