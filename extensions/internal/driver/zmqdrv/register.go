package zmqdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

func init() {
	driver.Register("zeromq", driver.Spec{
		NewOptions:       func() driver.Options { return &Options{} },
		Open:             Open,
		DefaultURL:       "tcp://127.0.0.1:5560",
		CheckURL:         checkURL,
		CheckDestination: checkTopic,
		// Holds: nil. No broker, no store: a consumer that stops reading stalls (push-pull)
		// or loses (pub-sub) messages, it never gets a backlog to drain.
	})
}
