package rabbitdrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

// promisesDelivery (Spec.PromisesDelivery): the broker confirmed a persistent message into a
// durable queue (quorum and stream queues are always durable), and keeps it until the
// consumer acknowledges it. With auto_ack the broker forgets a message once sent, so one lost
// on the way to a consumer is gone: a fault may lose messages by design.
func promisesDelivery(opts driver.Options) bool {
	o := opts.(*Options)
	on := func(b *bool) bool { return b == nil || *b } // unset means the default, true
	return on(o.Confirms) && on(o.Persistent) && on(o.Durable) && !o.AutoAck
}
