package driver_test

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/driver/kafkadrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/mongodrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitdrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/redisdrv"
)

// Which configurations promise delivery, and so get `mq_messages_lost: count == 0` by default.
func TestDurability(t *testing.T) {
	no := false
	cases := []struct {
		name   string
		broker string
		opts   driver.Options
		want   bool
	}{
		{"nats core", "nats", &natsdrv.Options{Mode: "core"}, false},
		{"nats jetstream", "nats", &natsdrv.Options{Mode: "jetstream"}, true},
		{"nats jetstream ack batch", "nats", &natsdrv.Options{Mode: "jetstream", Ack: "batch"}, true},
		{"nats jetstream ack none", "nats", &natsdrv.Options{Mode: "jetstream", Ack: "none"}, false},
		{"amqp10 defaults", "amqp10", &amqp10drv.Options{}, true},
		{"amqp10 accept auto", "amqp10", &amqp10drv.Options{Accept: amqp10drv.AcceptAuto}, false},
		{"redis pubsub", "redis", &redisdrv.Options{Mode: "pubsub"}, false},
		{"redis streams", "redis", &redisdrv.Options{Mode: "streams"}, true},
		{"kafka acks all (default)", "kafka", &kafkadrv.Options{}, true},
		{"kafka acks 1", "kafka", &kafkadrv.Options{Acks: "1"}, false},
		{"rabbitmq defaults", "rabbitmq", &rabbitdrv.Options{}, true},
		{"rabbitmq without confirms", "rabbitmq", &rabbitdrv.Options{Confirms: &no}, false},
		{"rabbitmq transient messages", "rabbitmq", &rabbitdrv.Options{Persistent: &no}, false},
		{"rabbitmq auto_ack", "rabbitmq", &rabbitdrv.Options{AutoAck: true}, false},
		{"mongodb defaults", "mongodb", &mongodrv.Options{}, true},
		{"mongodb find-one-and-delete", "mongodb", &mongodrv.Options{Claim: mongodrv.ClaimOne}, false},
	}
	for _, c := range cases {
		spec, err := driver.Lookup(c.broker)
		if err != nil {
			t.Fatal(err)
		}
		c.opts.Defaults()
		if got := driver.Has(spec.PromisesDelivery, c.opts); got != c.want {
			t.Errorf("%s: durable %v, want %v", c.name, got, c.want)
		}
	}
}

// Has: a nil predicate, and options that are not a driver's, have no capability.
func TestHas(t *testing.T) {
	yes := func(driver.Options) bool { return true }
	if driver.Has(nil, &natsdrv.Options{}) {
		t.Error("a nil predicate holds")
	}
	if driver.Has(yes, nil) || driver.Has(yes, map[string]any{"mode": "core"}) {
		t.Error("a predicate holds for options that are not a driver's")
	}
	if !driver.Has(yes, &natsdrv.Options{}) {
		t.Error("a true predicate does not hold")
	}
}
