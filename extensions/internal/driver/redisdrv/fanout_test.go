package redisdrv

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestFanOut(t *testing.T) {
	url := redisURL(t)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{name: "streams", opts: &Options{Mode: "streams"}},
		{name: "streams-small-reads", opts: &Options{Mode: "streams", ReadCount: 8, Block: 20 * time.Millisecond}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("fanout-" + tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-fanout-%s-%d", tc.name, time.Now().UnixNano())}
			drivertest.RunFanOut(t, "redis", cfg)
		})
	}
}

// TestFanOutExistingStream: on a stream the run did not create, Teardown destroys every
// subscription's group and leaves the stream; pub/sub refuses several subscriptions.
func TestFanOutExistingStream(t *testing.T) {
	url := redisURL(t)
	ctx := context.Background()
	o := &Options{Mode: "streams"}
	o.Defaults()
	key := unique("fanout-existing")
	d, err := Open(ctx, driver.Config{URL: url, Destination: key, Options: o, RunID: "r1", Subscriptions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rd := d.(*redisDriver)
	if err := rd.admin.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"d", "x"}}).Err(); err != nil {
		t.Fatal(err)
	}
	defer rd.admin.Del(ctx, key)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	for s := 0; s < 3; s++ {
		if ok, _, err := rd.SubscriptionExists(ctx, s); err != nil || !ok {
			t.Errorf("subscription %d after Setup: exists %v (%v)", s, ok, err)
		}
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := rd.admin.Exists(ctx, key).Result(); err != nil || n != 1 {
		t.Errorf("Teardown removed a stream it did not create (exists %d, %v)", n, err)
	}
	for s := 0; s < 3; s++ {
		if ok, _, err := rd.SubscriptionExists(ctx, s); err != nil || ok {
			t.Errorf("subscription %d after Teardown: exists %v (%v)", s, ok, err)
		}
	}

	ps := &Options{Mode: "pubsub"}
	ps.Defaults()
	spec, _ := driver.Lookup("redis")
	if spec.FanOut(ps) || !spec.FanOut(o) {
		t.Errorf("Spec.FanOut: pubsub %v, streams %v; want false, true", spec.FanOut(ps), spec.FanOut(o))
	}
	if _, err := Open(ctx, driver.Config{URL: url, Destination: key, Options: ps, Subscriptions: 2}); err == nil || !strings.Contains(err.Error(), "mode streams") {
		t.Errorf("Open pubsub with 2 subscriptions: %v, want a refusal naming mode streams", err)
	}
}
