package pulsardrv

import (
	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func init() {
	driver.Register("pulsar", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "pulsar://127.0.0.1:6750",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		// A persistent topic keeps every message for each durable subscription (created at
		// Setup) until it is acknowledged; a non-persistent topic hands a message only to the
		// consumers connected at that moment and drops it for the others.
		Holds: func(o driver.Options) bool {
			t, err := parseTopic("x", o.(*Options))
			return err == nil && t.persistent
		},
		// Each of the run's subscriptions receives every message: one subscription per
		// Config.Subscriptions, its consumers sharing it by subscription_type.
		FanOut:           func(driver.Options) bool { return true },
		PromisesDelivery: promisesDelivery,
	})
}
