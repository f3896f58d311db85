package rabbitdrv

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestRequestReply(t *testing.T) {
	url := rabbitURL(t)
	for _, tc := range []struct {
		name       string
		opts       *Options
		responders int
	}{
		{name: "classic", opts: &Options{}, responders: 1},
		{name: "classic-two-responders", opts: &Options{}, responders: 2},
		{name: "classic-no-confirms-auto-ack", opts: &Options{Confirms: ptr(false), AutoAck: true, Persistent: ptr(false)}, responders: 2},
		{name: "classic-topic-exchange-mandatory", opts: &Options{Exchange: "mqbench.test.x." + fmt.Sprint(time.Now().UnixNano()), ExchangeType: "topic", RoutingKey: "bench.key", Mandatory: true}, responders: 1},
		{name: "quorum-prefetch-10", opts: &Options{QueueType: "quorum", Prefetch: 10}, responders: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("reply-" + tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-reply-%s-%d", tc.name, time.Now().UnixNano())}
			drivertest.RunRequestReply(t, "rabbitmq", cfg, tc.responders)
		})
	}
}

// TestRequestReplyStream checks that a stream queue refuses request-reply, in the Spec (for
// the scenario parser) and in the driver.
func TestRequestReplyStream(t *testing.T) {
	url := rabbitURL(t)
	t.Parallel()
	spec, err := driver.Lookup("rabbitmq")
	if err != nil {
		t.Fatal(err)
	}
	o := &Options{QueueType: "stream"}
	o.Defaults()
	if spec.RequestReply(o) {
		t.Error("Spec.RequestReply allows a stream queue")
	}
	ctx := context.Background()
	d, err := Open(ctx, driver.Config{URL: url, Destination: unique("reply-stream"), Options: o, RunID: "reply-stream"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rr := d.(driver.RequestReply)
	if _, err := rr.NewResponder(ctx, 0); !errors.Is(err, errRequestReplyStream) {
		t.Errorf("NewResponder on a stream: %v, want %v", err, errRequestReplyStream)
	}
	if _, err := rr.NewRequester(ctx, 0, func([]byte, time.Time) {}); !errors.Is(err, errRequestReplyStream) {
		t.Errorf("NewRequester on a stream: %v, want %v", err, errRequestReplyStream)
	}
}
