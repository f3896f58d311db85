package rocketmqdrv

import (
	"testing"

	"github.com/apache/rocketmq-client-go/v2"
	"github.com/apache/rocketmq-client-go/v2/consumer"
	"github.com/apache/rocketmq-client-go/v2/primitive"
)

// The locked rebalance is reached through an unexported field of the pinned client library:
// an upgrade that moves it must fail here, not bring the duplicates back unnoticed.
func TestLockedRebalanceReachable(t *testing.T) {
	pc, err := rocketmq.NewPushConsumer(
		consumer.WithNameServer(primitive.NamesrvAddr{"127.0.0.1:1"}),
		consumer.WithGroupName("mqbench-test-rebalance"),
		consumer.WithInstance("rebalance-test"),
	)
	if err != nil {
		t.Fatal(err)
	}
	if rebalanceImmediately(pc) == nil {
		t.Fatal("the push consumer's client (defaultConsumer.client with RebalanceImmediately) is not reachable")
	}
	for _, v := range []rocketmq.PushConsumer{nil, notAClient{}} {
		if rebalanceImmediately(v) != nil {
			t.Fatalf("%T: a rebalance found where there is none", v)
		}
	}
}

// notAClient is a PushConsumer without the library's fields.
type notAClient struct{ rocketmq.PushConsumer }
