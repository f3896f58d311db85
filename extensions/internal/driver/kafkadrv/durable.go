package kafkadrv

import "github.com/mqbench/xk6-mqbench/internal/driver"

// promisesDelivery (Spec.PromisesDelivery): with acks=all every in-sync replica has the record
// before it is acknowledged.
func promisesDelivery(o driver.Options) bool { return o.(*Options).Acks == "all" }
