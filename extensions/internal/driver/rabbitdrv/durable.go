package rabbitdrv

// PromisesDelivery: the broker confirmed a persistent message into a durable queue (quorum and stream
// queues are always durable).
func (o *Options) PromisesDelivery() bool {
	on := func(b *bool) bool { return b == nil || *b } // unset means the default, true
	return on(o.Confirms) && on(o.Persistent) && on(o.Durable)
}
