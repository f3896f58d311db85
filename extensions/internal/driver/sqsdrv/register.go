package sqsdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("sqs", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "sqs://127.0.0.1:9424",
		CheckURL:         checkURL,
		CheckDestination: checkQueue,
		// A queue keeps every message until a consumer deletes it (or its retention ends).
		Holds: func(driver.Options) bool { return true },
		// SQS keeps every acknowledged message until a consumer deletes it (or its retention
		// period ends, 4 days by default), so a lost message is a failure. Redelivery after
		// the visibility timeout is allowed: duplicates, not losses.
		PromisesDelivery: func(driver.Options) bool { return true },
		MaxPayload:       maxPayload,
	})
}
