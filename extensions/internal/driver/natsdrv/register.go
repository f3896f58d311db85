package natsdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("nats", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "nats://127.0.0.1:4222",
		CheckURL:         checkURL,
		CheckDestination: checkSubject,
		// JetStream streams have a leader and replicas; core subjects live nowhere.
		Topology: func(o driver.Options) bool { return o.(*Options).Mode == "jetstream" },
		// Request-reply is core NATS's request with a reply subject; see reply.go.
		RequestReply: requestReply,
		// A JetStream stream keeps what a consumer has not read; a core subscriber that
		// stops reading is cut off as a slow consumer.
		Holds: func(o driver.Options) bool { return o.(*Options).Mode == "jetstream" },
		// A queue group (core) or a durable consumer (JetStream) per subscription.
		FanOut:           func(driver.Options) bool { return true },
		PromisesDelivery: promisesDelivery,
		HeaderStamp:      func(driver.Options) bool { return true }, // a message header (base64)
	})
}
