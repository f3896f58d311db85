package kafkadrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("kafka", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "kafka://127.0.0.1:9092",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		Topology:         func(driver.Options) bool { return true }, // partition leaders
		Holds:            func(driver.Options) bool { return true }, // a log: the group's offset waits
		FanOut:           func(driver.Options) bool { return true }, // a consumer group per subscription
		PromisesDelivery: promisesDelivery,
		HeaderStamp:      func(driver.Options) bool { return true }, // a record header
		MaxPayload:       maxPayload,
	})
}
