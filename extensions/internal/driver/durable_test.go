package driver_test

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/kafkadrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitdrv"
	"github.com/mqbench/xk6-mqbench/internal/driver/redisdrv"
)

// Which configurations promise delivery, and so get `mq_messages_lost: count == 0` by default.
func TestDurability(t *testing.T) {
	no := false
	cases := []struct {
		name string
		opts driver.Options
		want bool
	}{
		{"nats core", &natsdrv.Options{Mode: "core"}, false},
		{"nats jetstream", &natsdrv.Options{Mode: "jetstream"}, true},
		{"redis pubsub", &redisdrv.Options{Mode: "pubsub"}, false},
		{"redis streams", &redisdrv.Options{Mode: "streams"}, true},
		{"kafka acks all (default)", &kafkadrv.Options{}, true},
		{"kafka acks 1", &kafkadrv.Options{Acks: "1"}, false},
		{"rabbitmq defaults", &rabbitdrv.Options{}, true},
		{"rabbitmq without confirms", &rabbitdrv.Options{Confirms: &no}, false},
		{"rabbitmq transient messages", &rabbitdrv.Options{Persistent: &no}, false},
	}
	for _, c := range cases {
		c.opts.Defaults()
		d, ok := c.opts.(driver.Durability)
		if got := ok && d.PromisesDelivery(); got != c.want {
			t.Errorf("%s: durable %v, want %v", c.name, got, c.want)
		}
	}
}
