package natsdrv

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "core", opts: &Options{Mode: "core"}},
		{name: "core-shared", opts: &Options{Mode: "core"}, shared: true},
		{name: "jetstream-file", opts: &Options{Mode: "jetstream"}},
		{name: "jetstream-memory-shared", opts: &Options{Mode: "jetstream", Storage: "memory", FetchBatch: 16}, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: "embedded", Destination: "mqbench.test." + tc.name, Options: tc.opts, RunID: "run-" + tc.name}
			if tc.shared {
				drivertest.RunShared(t, "nats", cfg)
			} else {
				drivertest.Run(t, "nats", cfg)
			}
		})
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"nats://127.0.0.1:1", "nats://bench:secret@127.0.0.1:1"} {
		drivertest.Unreachable(t, "nats", u, nil)
	}
}

// TestEmbeddedClose checks that Close stops the embedded server and removes its store.
func TestEmbeddedClose(t *testing.T) {
	t.Parallel()
	o := &Options{Mode: "jetstream"}
	o.Defaults()
	d, err := Open(context.Background(), driver.Config{URL: "embedded", Destination: "mqbench.close", Options: o, RunID: "close"})
	if err != nil {
		t.Fatal(err)
	}
	nd := d.(*natsDriver)
	url, dir := nd.url, nd.embedded.dir
	if err := d.Setup(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("store dir %s still exists after Close", dir)
	}
	o2 := &Options{}
	o2.Defaults()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if d2, err := Open(ctx, driver.Config{URL: url, Destination: "x", Options: o2}); err == nil {
		d2.Close()
		t.Errorf("embedded server at %s still accepts connections after Close", url)
	}
}

func TestValidateOrder(t *testing.T) {
	o := &Options{Mode: "core", Stream: "S", Storage: "file", Replicas: 3, FetchBatch: 1, AckTimeout: time.Second}
	errs := o.Validate()
	want := []string{"ack_timeout", "fetch_batch", "replicas", "storage", "stream"}
	if len(errs) != len(want) {
		t.Fatalf("got %v", errs)
	}
	for i, e := range errs {
		if e.Field != want[i] {
			t.Errorf("error %d field %q, want %q", i, e.Field, want[i])
		}
	}
}

func TestHelpers(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"bench.latency", "BENCH_LATENCY"},
		{"orders.*.eu-1", "ORDERS___EU_1"},
	} {
		if got := defaultStreamName(tc.in); got != tc.want {
			t.Errorf("defaultStreamName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct {
		subj, filter string
		want         bool
	}{
		{"a.b", "a.b", true}, {"a.b", "a.*", true}, {"a.b", "a.>", true}, {"a", "a.>", false},
		{"a.b.c", "a.*", false}, {"a.b", "a.c", false}, {"a.b", ">", true},
	} {
		if got := subjectMatches(tc.subj, tc.filter); got != tc.want {
			t.Errorf("subjectMatches(%q, %q) = %v", tc.subj, tc.filter, got)
		}
	}
}

func BenchmarkCorePublishConsume1KB(b *testing.B) {
	o := &Options{Mode: "core"}
	o.Defaults()
	drivertest.Benchmark(b, "nats", driver.Config{URL: "embedded", Destination: "mqbench.bench", Options: o}, 1024)
}

func BenchmarkJetStreamPublishConsume1KB(b *testing.B) {
	o := &Options{Mode: "jetstream", Storage: "memory"}
	o.Defaults()
	drivertest.Benchmark(b, "nats", driver.Config{URL: "embedded", Destination: "mqbench.bench", Options: o}, 1024)
}
