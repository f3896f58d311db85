package rabbitdrv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/rabbitmgmt"
)

// withEndpoints points o's management and Prometheus addresses at the broker under test:
// MQBENCH_RABBITMQ_MANAGEMENT_URL and MQBENCH_RABBITMQ_PROMETHEUS_URL, for a broker on other
// ports than the defaults (unset: the defaults, http://<url host>:15672 and :15692).
func withEndpoints(o *Options) *Options {
	o.ManagementURL = os.Getenv("MQBENCH_RABBITMQ_MANAGEMENT_URL")
	o.PrometheusURL = os.Getenv("MQBENCH_RABBITMQ_PROMETHEUS_URL")
	return o
}

// openQueue opens a driver on a queue of its own, set up, torn down and closed at the end.
func openQueue(t *testing.T, name string, o *Options) *rabbitDriver {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	o.Defaults()
	d, err := Open(ctx, driver.Config{URL: rabbitURL(t), Destination: unique(name), Options: withEndpoints(o), RunID: name})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Teardown(context.Background()) })
	return d.(*rabbitDriver)
}

// publishConfirmed sends n messages and waits for every confirm.
func publishConfirmed(t *testing.T, d *rabbitDriver, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	acks := make([]driver.Ack, 0, n)
	for i := range n {
		a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "backlog %d", i)})
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		acks = append(acks, a)
	}
	for i, a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("confirm %d: %v", i, err)
		}
	}
}

// readyOf is the queue's message_count in queue.declare-ok.
func readyOf(t *testing.T, d *rabbitDriver) int64 {
	t.Helper()
	var q amqp.Queue
	if err := d.withChannel(func(ch *amqp.Channel) (err error) {
		q, err = ch.QueueDeclarePassive(d.queue, false, false, false, false, nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return int64(q.Messages)
}

// TestReadBacklogIsExact: right after n confirmed messages reach a queue nobody consumes, the
// backlog read for the reconciliation is n, with no wait: the management API refreshes its
// counts only every collect_statistics_interval (5 s), so it says nothing or a stale figure
// then (logged for comparison), and at overload every message it missed read as lost. A
// stream has no such figure: Unknown.
func TestReadBacklogIsExact(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		queueType string
		want      int64
	}{
		{"classic", n},
		{"quorum", n},
		{"stream", driver.Unknown},
	} {
		t.Run(tc.queueType, func(t *testing.T) {
			t.Parallel()
			d := openQueue(t, "backlog-"+tc.queueType, &Options{QueueType: tc.queueType})
			publishConfirmed(t, d, n)
			got, err := d.ReadBacklog(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			m := rabbitmgmt.New(d.opts.ManagementURL, d.uri.Host, d.uri.Username, d.uri.Password)
			if q, err := m.Queue(context.Background(), d.queue); err == nil && q.MessagesReady != nil {
				t.Logf("%s: read %d; the management API said messages_ready %d at the same moment", tc.queueType, got, *q.MessagesReady)
			} else {
				t.Logf("%s: read %d; the management API had no figure yet (%v)", tc.queueType, got, err)
			}
			t.Logf("%s: queue.declare-ok message_count %d", tc.queueType, readyOf(t, d))
			if got != tc.want {
				t.Errorf("backlog %d right after %d confirmed sends, want %d", got, n, tc.want)
			}
		})
	}
}

// TestReadBacklogCountsTheWindow: messages the broker has sent to a consumer whose callback
// has not taken them yet are unacknowledged, not ready, so queue.declare-ok leaves them out;
// the read adds the consumer's window (prefetch less what its callback holds unacknowledged).
// A consumer's callback blocks on its first delivery while the broker fills the window: the
// queue then has n-prefetch ready, and the read is still n. Once everything is consumed and
// acknowledged the read is the empty window (an upper bound, by design).
func TestReadBacklogCountsTheWindow(t *testing.T) {
	t.Parallel()
	const n, prefetch = 1000, 20
	d := openQueue(t, "backlog-window", &Options{QueueType: "quorum", Prefetch: prefetch})
	publishConfirmed(t, d, n)
	ctx := context.Background()
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	var seen atomic.Int64
	if err := c.Start(ctx, func([]byte, time.Time) {
		if seen.Add(1) == 1 {
			<-release
		}
	}); err != nil {
		t.Fatal(err)
	}
	ready := func() int64 { return readyOf(t, d) }
	waitFor(t, 10*time.Second, func() bool { return ready() == n-prefetch })
	got, err := d.ReadBacklog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("window full: ready %d, read %d, callback saw %d", n-prefetch, got, seen.Load())
	if got != n || got < n-seen.Load() {
		t.Errorf("backlog %d with the window full, want %d (ready %d + window %d)", got, n, n-prefetch, prefetch)
	}
	close(release)
	waitFor(t, 20*time.Second, func() bool { return seen.Load() == n && ready() == 0 && c.(*consumer).unacked.Load() == 0 })
	if got, err := d.ReadBacklog(ctx); err != nil || got != prefetch {
		t.Errorf("backlog %d, %v once everything was acknowledged, want %d (the empty window)", got, err, prefetch)
	}
}

// TestReadyNowWantsTheConsumersCounted: while the run's consumers are subscribed, an answer
// that counts none of them is not taken as the depth. A stream gives such an answer (its
// whole log, 0 consumers; so does a quorum queue whose leader is too busy to answer, with 0
// messages): were a stream taken for a classic queue, its whole log would excuse every loss.
func TestReadyNowWantsTheConsumersCounted(t *testing.T) {
	t.Parallel()
	d := openQueue(t, "backlog-stream-consumed", &Options{QueueType: "stream"})
	publishConfirmed(t, d, 100)
	ctx := context.Background()
	n, err := d.readyNow(ctx, false, d.queue)
	if err != nil {
		t.Fatalf("nobody subscribed: %v", err)
	}
	t.Logf("a stream of 100 messages nobody reads: message_count %d", n)
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx, func([]byte, time.Time) {}); err != nil {
		t.Fatal(err)
	}
	if n, err := d.readyNow(ctx, false, d.queue); err == nil {
		t.Errorf("a consumer subscribed, not counted: %d, no error", n)
	} else {
		t.Log(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if n, err := d.readyNow(short, true, d.queue); err == nil {
		t.Errorf("asked until the deadline: %d, no error", n)
	} else if took := time.Since(start); took > time.Second {
		t.Errorf("asked for %v past a 200 ms deadline", took)
	}
}

// TestReadBacklogAtOverload: producers publish into a quorum queue as fast as they can while
// one slow consumer (about 1,000 msg/s) takes from it, so a backlog of tens of thousands
// builds, as at the freeze of an overloaded cell. Every read, during the publishing and right
// after it, is at least what was confirmed before it less what the callback had seen after it
// (never below the truth: a lower read would report held messages as lost); the last one, with
// the producers done, is at most the truth plus the consumer's window.
func TestReadBacklogAtOverload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a backlog for 5 s")
	}
	t.Parallel()
	const producers, prefetch = 4, 50
	d := openQueue(t, "backlog-overload", &Options{QueueType: "quorum", Prefetch: prefetch})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen, confirmed atomic.Int64
	if err := c.Start(ctx, func([]byte, time.Time) {
		seen.Add(1)
		time.Sleep(time.Millisecond)
	}); err != nil {
		t.Fatal(err)
	}
	check := func(when string, before int64) int64 {
		t.Helper()
		start := time.Now()
		got, err := d.ReadBacklog(ctx)
		took, after := time.Since(start), seen.Load()
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		t.Logf("%s: read %d in %v (confirmed %d before, seen %d after)", when, got, took.Round(time.Millisecond), before, after)
		if got < before-after {
			t.Errorf("%s: read %d, below confirmed %d - seen %d = %d", when, got, before, after, before-after)
		}
		return got
	}
	stop := time.Now().Add(5 * time.Second)
	var wg sync.WaitGroup
	for id := range producers {
		p, err := d.NewPublisher(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		acks := make(chan driver.Ack, 2000) // bounds what is unconfirmed
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(acks)
			for time.Now().Before(stop) {
				a, err := p.Send(ctx, driver.Message{Value: make([]byte, 64)})
				if err != nil {
					t.Errorf("send: %v", err)
					return
				}
				acks <- a
			}
		}()
		go func() {
			defer wg.Done()
			for a := range acks {
				if err := a.Wait(ctx); err != nil {
					t.Errorf("confirm: %v", err)
				}
				confirmed.Add(1)
			}
		}()
	}
	for i := 1; time.Now().Before(stop); i++ {
		time.Sleep(500 * time.Millisecond)
		check(fmt.Sprintf("publishing, read %d", i), confirmed.Load())
	}
	wg.Wait()
	seenBefore := seen.Load()
	got := check("producers done", confirmed.Load())
	if truth := confirmed.Load() - seenBefore; got > truth+prefetch {
		t.Errorf("read %d, above confirmed %d - seen %d + window %d = %d", got, confirmed.Load(), seenBefore, prefetch, truth+prefetch)
	}
}
