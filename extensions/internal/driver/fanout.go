package driver

import (
	"context"
	"strconv"
)

// FanOut is implemented by drivers that can give the destination several independent
// subscriptions, each receiving every message (Config.Subscriptions of them).
type FanOut interface {
	// NewSubscriber opens consumer connection id (0-based, unique across subscriptions) of
	// subscription sub (0-based); the consumers of one subscription share its messages.
	NewSubscriber(ctx context.Context, sub, id int) (Consumer, error)
}

// SubscriptionName names fan-out subscription sub's broker object (queue group, durable
// consumer, consumer group, queue) after base, the run's own name for it: base for
// subscription 0, so a run without fan-out names nothing new, then base+sep+"s<sub>".
func SubscriptionName(base, sep string, sub int) string {
	if sub == 0 {
		return base
	}
	return base + sep + "s" + strconv.Itoa(sub)
}
