package nsqdrv

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// nsqURL returns the nsqd to test against (MQBENCH_NSQ_URL, default nsq://127.0.0.1:4250,
// scripts/brokers/start.sh nsq). When it does not answer, the test is skipped, unless
// MQBENCH_REQUIRE_BROKERS=1, which makes it a failure.
func nsqURL(t testing.TB) string { return drivertest.BrokerURL(t, "nsq") }

func unique(name string) string {
	return fmt.Sprintf("mqbench.test.%s.%d", name, time.Now().UnixNano())
}

func TestConformance(t *testing.T) {
	url := nsqURL(t)
	for _, tc := range []struct {
		name   string
		opts   *Options
		shared bool
	}{
		{name: "default", opts: &Options{}},
		{name: "shared-inflight-16", opts: &Options{MaxInFlight: 16}, shared: true},
		{name: "named-channel", opts: &Options{Channel: "mqbench-named"}},
		{name: "unbuffered", opts: &Options{OutputBufferSize: -1, OutputBufferTimeout: 25 * time.Millisecond}},
		// MPUB: batches of what waits (unpaced sends fill them), and batches held for more.
		{name: "mpub-200", opts: &Options{PublishBatch: 200}},
		{name: "mpub-linger", opts: &Options{PublishBatch: 50, PublishLinger: 2 * time.Millisecond}, shared: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique(tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-%s-%d", tc.name, time.Now().UnixNano())}
			if tc.shared {
				drivertest.RunShared(t, "nsq", cfg)
			} else {
				drivertest.Run(t, "nsq", cfg)
			}
		})
	}
}

// TestBrokerStats: 500 messages nobody reads are the run's channel's depth (Backlog); nsqd
// exposes neither CPU time nor resident memory.
func TestBrokerStats(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	o := &Options{}
	o.Defaults()
	cfg := driver.Config{URL: url, Destination: unique("stats"), Options: o, RunID: fmt.Sprintf("stats-%d", time.Now().UnixNano())}
	drivertest.BrokerStats(t, "nsq", cfg, 500, drivertest.StatsWant{Backlog: 500})
}

// TestKeptTopic: with keep, Teardown leaves the topic it created but deletes the run's
// channel; a second run on the existing topic creates (and later deletes) only its channel.
func TestKeptTopic(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	ctx := context.Background()
	topic := unique("kept")
	open := func(o *Options, run string) *nsqDriver {
		o.Defaults()
		d, err := Open(ctx, driver.Config{URL: url, Destination: topic, Options: o, RunID: run})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		return d.(*nsqDriver)
	}
	d := open(&Options{Keep: true}, "kept1")
	defer d.call(ctx, "POST", "/topic/delete?topic="+topic, nil)
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if !d.topicCreated || !d.channelCreated {
		t.Fatalf("first Setup: topicCreated=%v channelCreated=%v, want both", d.topicCreated, d.channelCreated)
	}
	if err := d.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if topicOK, chOK, err := d.exists(ctx); err != nil || !topicOK || chOK {
		t.Fatalf("after Teardown with keep: topic %v channel %v (%v); want the topic kept, the channel gone", topicOK, chOK, err)
	}

	d2 := open(&Options{}, "kept2")
	if err := d2.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	if d2.topicCreated || !d2.channelCreated {
		t.Fatalf("second Setup: topicCreated=%v channelCreated=%v, want the channel only", d2.topicCreated, d2.channelCreated)
	}
	if err := d2.Teardown(ctx); err != nil {
		t.Fatal(err)
	}
	if topicOK, chOK, err := d2.exists(ctx); err != nil || !topicOK || chOK {
		t.Fatalf("after the second Teardown: topic %v channel %v (%v); want the topic left, the channel gone", topicOK, chOK, err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	drivertest.Unreachable(t, "nsq", "nsq://127.0.0.1:1", nil)
}

// TestUnreachableHTTP: nsqd's TCP port answers but the HTTP API given does not.
func TestUnreachableHTTP(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	o := &Options{HTTPAddress: "127.0.0.1:1"}
	o.Defaults()
	_, err := Open(context.Background(), driver.Config{URL: url, Destination: "x", Options: o})
	var ue *driver.UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "http_address") {
		t.Fatalf("got %v, want an UnreachableError naming http_address", err)
	}
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"nsq://127.0.0.1:4250", "127.0.0.1:4150", "nsq://localhost", "nsq://[::1]:4150"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"redis://127.0.0.1:4150", "nsq://a:1,nsq://b:2", "nsq://127.0.0.1:4150/x", "nsq://u:p@127.0.0.1:4150", "nsq://127.0.0.1:99999"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	for _, n := range []string{"a", "bench.latency", "A-b_c.1", "t#ephemeral", strings.Repeat("x", 64)} {
		if err := checkTopic(n, nil); err != nil {
			t.Errorf("checkTopic(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "a b", "a/b", "a#b", strings.Repeat("x", 65), "é"} {
		if err := checkTopic(n, nil); err == nil {
			t.Errorf("checkTopic(%q) accepted", n)
		}
	}
	if got := channelName(strings.Repeat("r", 80) + "/x"); len(got) != 64 || checkName("channel", got) != nil {
		t.Errorf("channelName: %q", got)
	}
	o := &Options{MaxInFlight: 0, Channel: "bad name", HTTPAddress: "x:0", OutputBufferSize: 10, OutputBufferTimeout: time.Millisecond, PublishBatch: 1}
	if errs := o.Validate(); len(errs) != 5 {
		t.Errorf("Validate: %v, want 5 errors", errs)
	}
	for _, tc := range []struct {
		o     Options
		field string
	}{
		{Options{PublishBatch: 10001}, "publish_batch"},
		{Options{PublishBatch: -1}, "publish_batch"},
		{Options{PublishBatch: 200, PublishLinger: 2 * time.Second}, "publish_linger"},
		{Options{PublishLinger: -time.Millisecond}, "publish_linger"},
	} {
		tc.o.Defaults()
		if errs := tc.o.Validate(); len(errs) != 1 || errs[0].Field != tc.field {
			t.Errorf("Validate(%+v): %v, want one %s error", tc.o, errs, tc.field)
		}
	}
}

func BenchmarkPublishConsume1KB(b *testing.B) {
	url := nsqURL(b)
	o := &Options{}
	o.Defaults()
	drivertest.Benchmark(b, "nsq", driver.Config{URL: url, Destination: unique("bench"), Options: o}, 1024)
}

// TestMPUB: 1,000 messages sent without pause through publish_batch 100 all arrive, in
// fewer requests than messages (MPUB was used) and none over the batch size.
func TestMPUB(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	ctx := context.Background()
	o := &Options{PublishBatch: 100, PublishLinger: 5 * time.Millisecond}
	o.Defaults()
	d, pub := drivertest.OpenPublisher(t, Open, driver.Config{URL: url, Destination: unique("mpub"), Options: o, RunID: fmt.Sprintf("mpub-%d", time.Now().UnixNano())})
	const n = 1000
	drivertest.SendNumbered(ctx, t, pub, n, nil)
	bp := pub.(*batchPublisher)
	if r := bp.requests.Load(); r < n/100 || r >= n/2 {
		t.Errorf("%d messages in %d requests, want between %d and %d (MPUB batches of up to 100)", n, r, n/100, n/2)
	}
	pub.Close()
	if err := d.(*nsqDriver).Teardown(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMPUBRefusedThenReconnects: a message nsqd refuses (over its --max-msg-size; nsqd answers
// E_BAD_MESSAGE and closes the connection) fails with nsqd's error; the publisher re-connects
// for the next batch, and exactly the accepted messages are in the run's channel.
func TestMPUBRefusedThenReconnects(t *testing.T) {
	url := nsqURL(t)
	t.Parallel()
	ctx := context.Background()
	o := &Options{PublishBatch: 10}
	o.Defaults()
	d, pub := drivertest.OpenPublisher(t, Open, driver.Config{URL: url, Destination: unique("refused"), Options: o, RunID: fmt.Sprintf("refused-%d", time.Now().UnixNano())})
	send := func(v []byte) error {
		a, err := pub.Send(ctx, driver.Message{Value: v})
		if err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		return a.Wait(wctx)
	}
	if err := send([]byte("first")); err != nil {
		t.Fatalf("first message: %v", err)
	}
	err := send(make([]byte, 5<<20)) // over nsqd's 4 MiB --max-msg-size
	if err == nil || !strings.Contains(err.Error(), "E_BAD_MESSAGE") {
		t.Fatalf("a message over nsqd's size limit: %v, want nsqd's E_BAD_MESSAGE", err)
	}
	drivertest.SendNumbered(ctx, t, pub, 25, nil) // several batches on the new connection
	st, err := d.(*nsqDriver).BrokerStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Backlog != 26 {
		t.Fatalf("the run's channel holds %d messages, want the 26 accepted", st.Backlog)
	}
}
