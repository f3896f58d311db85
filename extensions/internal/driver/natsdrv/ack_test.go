package natsdrv

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

const (
	ackN        = 300 // messages published
	ackStolen   = 7   // of them fetched by a bare client that never acknowledges them
	ackTestWait = time.Second
)

// TestAckRedelivery: a bare client takes 7 of 300 messages from the run's durable consumer and
// never acknowledges them. With ack explicit or batch the server still holds them (the
// backlog counts them: num_pending + num_ack_pending). With explicit it delivers them again
// after ack_wait, so the run's consumer receives all 300, 7 at least ack_wait after they were
// taken; with batch the run's consumer's first acknowledgement (AckPolicy all) settles them
// too, as the option says, so 293 arrive; with ack none they are gone once sent: 293 arrive.
// Every time the run's own acknowledgements leave nothing pending.
// Against the embedded server and the shared one (MQBENCH_NATS_URL, skipped without).
func TestAckRedelivery(t *testing.T) {
	for _, url := range ackURLs(t) {
		for _, tc := range []struct {
			ack      string
			batch    int
			interval time.Duration
		}{
			{ack: "explicit"},
			{ack: "batch", batch: 16, interval: 20 * time.Millisecond},
			{ack: "none"},
		} {
			name := tc.ack + "/" + strings.SplitN(url, ":", 2)[0]
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				o := &Options{Mode: "jetstream", Storage: "memory", Ack: tc.ack, AckBatch: tc.batch, AckInterval: tc.interval}
				if tc.ack != "none" {
					o.AckWait = ackTestWait
				}
				redelivery(t, url, o)
			})
		}
	}
}

func redelivery(t *testing.T, url string, o *Options) {
	o.Defaults()
	if errs := o.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d := openSetUp(t, ctx, url, o)
	publish(t, ctx, d, ackN)

	// The bare client takes ackStolen messages and drops them unacknowledged.
	nc, err := nats.Connect(d.url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	cons, err := js.Consumer(ctx, d.stream, d.durable)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := cons.FetchNoWait(ackStolen)
	if err != nil {
		t.Fatal(err)
	}
	var taken int
	for range batch.Messages() {
		taken++
	}
	takenAt := time.Now()
	if taken != ackStolen {
		t.Fatalf("bare client fetched %d, want %d (%v)", taken, ackStolen, batch.Error())
	}
	if st, err := d.BrokerStats(ctx); err != nil || st.Backlog != backlogWant(o, ackN) {
		t.Errorf("backlog after %d taken: %d (%v), want %d", ackStolen, st.Backlog, err, backlogWant(o, ackN))
	}

	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]time.Time{}
	if err := c.Start(ctx, func(v []byte, at time.Time) {
		mu.Lock()
		got[string(v)] = at
		mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	redelivers := o.Ack == "explicit"
	want := ackN
	if !redelivers {
		want = ackN - ackStolen
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	// 3 × ack_wait: the redelivery, with room for a loaded machine; without one the same
	// time passes and nothing more may come.
	deadline := time.Now().Add(3 * ackTestWait)
	for time.Now().Before(deadline) && (!redelivers || count() < want) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := count(); n != want {
		t.Fatalf("received %d distinct messages, want %d", n, want)
	}
	if redelivers {
		late := 0
		mu.Lock()
		for _, at := range got {
			if at.Sub(takenAt) >= ackTestWait-100*time.Millisecond {
				late++
			}
		}
		mu.Unlock()
		if late < ackStolen {
			t.Errorf("%d messages arrived ack_wait after the bare client took %d: the taken ones were not redelivered by the server", late, ackStolen)
		}
	}
	// The run's consumer settled what it received: nothing pending, nothing awaiting an ack.
	var info *jetstream.ConsumerInfo
	deadline = time.Now().Add(5 * time.Second)
	for {
		if info, err = cons.Info(ctx); err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.NumPending == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if info.NumAckPending != 0 || info.NumPending != 0 {
		t.Errorf("after the run's consumer: num_pending %d num_ack_pending %d, want 0 and 0", info.NumPending, info.NumAckPending)
	}
	if st, err := d.BrokerStats(ctx); err != nil || st.Backlog != 0 {
		t.Errorf("backlog at the end: %d (%v), want 0", st.Backlog, err)
	}
	// Deliveries (the consumer sequence) = every message once + the redelivered ones.
	if redelivers && info.Delivered.Consumer < ackN+ackStolen {
		t.Errorf("the server made %d deliveries, want >= %d", info.Delivered.Consumer, ackN+ackStolen)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
}

// backlogWant: taken but unacknowledged messages are still the broker's with acks (ack
// pending), gone without.
func backlogWant(o *Options, n int) int64 {
	if o.Ack == "none" {
		return int64(n - ackStolen)
	}
	return int64(n)
}

// TestAckBatchClose: with ack batch and an interval longer than the test, 150 messages are
// 1 acknowledgement of 100 and 50 waiting; Close sends the pending one, so nothing is left
// awaiting an acknowledgement (and nothing comes back to another receiver).
func TestAckBatchClose(t *testing.T) {
	for _, url := range ackURLs(t) {
		t.Run(strings.SplitN(url, ":", 2)[0], func(t *testing.T) {
			t.Parallel()
			o := &Options{Mode: "jetstream", Storage: "memory", Ack: "batch", AckBatch: 100, AckInterval: 10 * time.Second, AckWait: time.Hour}
			o.Defaults()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			d := openSetUp(t, ctx, url, o)
			publish(t, ctx, d, 150)
			c, err := d.NewConsumer(ctx, 0)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			n := 0
			if err := c.Start(ctx, func([]byte, time.Time) { mu.Lock(); n++; mu.Unlock() }); err != nil {
				t.Fatal(err)
			}
			ackPending := func() uint64 {
				info, err := d.js.Consumer(ctx, d.stream, d.durable)
				if err != nil {
					t.Fatal(err)
				}
				return uint64(info.CachedInfo().NumAckPending)
			}
			waitUntil(t, "150 received and 50 awaiting their ack", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return n == 150 && ackPending() == 50
			})
			if err := c.Close(); err != nil {
				t.Fatal(err)
			}
			waitUntil(t, "nothing awaiting an ack after Close", func() bool { return ackPending() == 0 })
		})
	}
}

// ackURLs: the embedded server, and the shared one when MQBENCH_NATS_URL (or the default
// url) answers.
func ackURLs(t *testing.T) []string {
	urls := []string{"embedded"}
	if testing.Short() {
		return urls
	}
	return append(urls, drivertest.BrokerURL(t, "nats"))
}

func openSetUp(t *testing.T, ctx context.Context, url string, o *Options) *natsDriver {
	t.Helper()
	run := fmt.Sprintf("ack-%s-%d", o.Ack, time.Now().UnixNano())
	dr, err := Open(ctx, driver.Config{URL: url, Destination: "mqbench.test." + run, Options: o, RunID: run})
	if err != nil {
		t.Fatal(err)
	}
	d := dr.(*natsDriver)
	t.Cleanup(func() {
		if err := d.Teardown(context.Background()); err != nil {
			t.Error(err)
		}
		d.Close()
	})
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	return d
}

// publish sends n messages "m<i>" and waits for every acknowledgement.
func publish(t *testing.T, ctx context.Context, d *natsDriver, n int) {
	t.Helper()
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	for i := range n {
		a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "m%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Wait(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
