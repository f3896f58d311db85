package rocketmqdrv

import (
	"reflect"
	"unsafe"

	"github.com/apache/rocketmq-client-go/v2"
)

// rebalanceImmediately returns the push consumer's client's RebalanceImmediately, the
// rebalance the client itself runs (at Start, on the broker's notification, every 20 s)
// under its rebalance mutex. The consumer's exported Rebalance skips that mutex, and its
// queue table is check-then-store across a broker round trip: run beside the client's own
// rebalance, both may add a pull request for the same queue, which is then consumed twice
// (a quarter of a 4-queue run duplicated). The client is an unexported field
// (defaultConsumer.client, rocketmq-client-go v2.1.2), hence reflect; nil when it is not
// there, and TestLockedRebalanceReachable fails on an upgrade that moves it.
func rebalanceImmediately(pc rocketmq.PushConsumer) func() {
	v := reflect.ValueOf(pc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	f := v.Elem().FieldByName("client") // promoted from the embedded *defaultConsumer
	if !f.IsValid() || f.Kind() != reflect.Interface || !f.CanAddr() {
		return nil
	}
	client := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Interface()
	if r, ok := client.(interface{ RebalanceImmediately() }); ok {
		return r.RebalanceImmediately
	}
	return nil
}
