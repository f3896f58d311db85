package driver

import "context"

// FanOut is implemented by drivers that can give the destination several independent
// subscriptions, each receiving every message (Config.Subscriptions of them).
type FanOut interface {
	// NewSubscriber opens consumer connection id (0-based, unique across subscriptions) of
	// subscription sub (0-based); the consumers of one subscription share its messages.
	NewSubscriber(ctx context.Context, sub, id int) (Consumer, error)
}
