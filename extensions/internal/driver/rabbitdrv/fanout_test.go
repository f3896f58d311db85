package rabbitdrv

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestFanOut(t *testing.T) {
	url := rabbitURL(t)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{name: "classic-default-exchange", opts: &Options{}},
		{name: "quorum-default-exchange", opts: &Options{QueueType: "quorum"}},
		{name: "classic-direct-exchange-mandatory", opts: &Options{Exchange: "mqbench.test.fx." + fmt.Sprint(time.Now().UnixNano()), Mandatory: true}},
		{name: "classic-topic-exchange", opts: &Options{Exchange: "mqbench.test.fx.t" + fmt.Sprint(time.Now().UnixNano()), ExchangeType: "topic", RoutingKey: "bench.key"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("fanout-" + tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-fanout-%s-%d", tc.name, time.Now().UnixNano())}
			drivertest.RunFanOut(t, "rabbitmq", cfg)
			if tc.opts.Exchange != "" {
				return
			}
			// The fanout exchange the run declared after the queue is gone too.
			cfg.Subscriptions = drivertest.FanOutSubscriptions
			d, err := Open(t.Context(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			if ok, err := d.(*rabbitDriver).exchangeExists(); err != nil || ok {
				t.Errorf("fanout exchange %s after Teardown: exists %v (%v), want gone", cfg.Destination, ok, err)
			}
		})
	}
}

// A stream gives every consumer every message: no fan-out, and Open refuses several
// subscriptions.
func TestFanOutStreamRefused(t *testing.T) {
	o := &Options{QueueType: "stream"}
	o.Defaults()
	spec, err := driver.Lookup("rabbitmq")
	if err != nil {
		t.Fatal(err)
	}
	if spec.FanOut(o) {
		t.Error("Spec.FanOut allows a stream")
	}
	if c := (&Options{}); func() bool { c.Defaults(); return !spec.FanOut(c) }() {
		t.Error("Spec.FanOut refuses a classic queue")
	}
	_, err = Open(t.Context(), driver.Config{URL: "amqp://guest:guest@127.0.0.1:1/", Destination: "q", Options: o, Subscriptions: 2})
	if err == nil || !strings.Contains(err.Error(), "classic or quorum") {
		t.Errorf("Open of a stream with 2 subscriptions: %v, want a refusal naming classic or quorum", err)
	}
}
