package natsdrv

import (
	"context"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestFanOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{name: "core", opts: &Options{Mode: "core"}},
		{name: "jetstream-file", opts: &Options{Mode: "jetstream"}},
		{name: "jetstream-memory", opts: &Options{Mode: "jetstream", Storage: "memory", FetchBatch: 16}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: "embedded", Destination: "mqbench.test.fanout." + tc.name, Options: tc.opts, RunID: "run-fanout-" + tc.name}
			drivertest.RunFanOut(t, "nats", cfg)
		})
	}
}

// TestFanOutExistingStream: on a stream the run did not create, Teardown deletes every
// subscription's durable consumer and leaves the stream.
func TestFanOutExistingStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o := &Options{Mode: "jetstream", Stream: "FANOUT_EXISTING", Storage: "memory"}
	o.Defaults()
	d, err := Open(ctx, driver.Config{URL: "embedded", Destination: "mqbench.fanout.existing", Options: o, RunID: "r1", Subscriptions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	nd := d.(*natsDriver)
	if _, err := nd.js.CreateStream(ctx, jetstream.StreamConfig{Name: "FANOUT_EXISTING", Subjects: []string{"mqbench.fanout.existing"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	for s, name := range []string{"mqbench-r1", "mqbench-r1-s1", "mqbench-r1-s2"} {
		if _, err := nd.js.Consumer(ctx, "FANOUT_EXISTING", name); err != nil {
			t.Errorf("subscription %d: consumer %s missing after Setup: %v", s, name, err)
		}
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := nd.js.Stream(ctx, "FANOUT_EXISTING"); err != nil {
		t.Errorf("Teardown removed a stream it did not create: %v", err)
	}
	for s := 0; s < 3; s++ {
		if exists, _, err := nd.SubscriptionExists(ctx, s); err != nil || exists {
			t.Errorf("subscription %d after Teardown: exists %v (%v)", s, exists, err)
		}
	}
	if _, err := d.(driver.FanOut).NewSubscriber(ctx, 3, 6); err == nil {
		t.Error("NewSubscriber of subscription 3 of 3 succeeded")
	}
}
