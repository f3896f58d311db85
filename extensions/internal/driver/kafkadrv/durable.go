package kafkadrv

// PromisesDelivery: with acks=all every in-sync replica has the record before it is acknowledged.
func (o *Options) PromisesDelivery() bool { return o.Acks == "all" }
