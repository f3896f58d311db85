package rabbitdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

// promisesDelivery (Spec.PromisesDelivery): the broker confirmed a persistent message into a
// durable queue (quorum and stream queues are always durable).
func promisesDelivery(opts driver.Options) bool {
	o := opts.(*Options)
	on := func(b *bool) bool { return b == nil || *b } // unset means the default, true
	return on(o.Confirms) && on(o.Persistent) && on(o.Durable)
}
