package amqp10drv_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
)

// backlogBroker is a broker whose depth the driver reads (ReadBacklog).
type backlogBroker struct {
	name string
	url  func(*testing.T) string
	opts func(o *amqp10drv.Options) *amqp10drv.Options
	// overload is the backlog at which TestReadBacklogAtOverload's producers pause: thousands,
	// not the broker's whole memory (shared), and what the consumer drains in seconds after.
	overload int64
}

// backlogBrokers: Artemis (address plain) and ActiveMQ Classic (address activemq, whose
// persistent store takes a tenth of Artemis's rate here).
func backlogBrokers() []backlogBroker {
	return []backlogBroker{
		{"artemis", artemisURL, plain, 15000},
		{"activemq", activemqURL, func(o *amqp10drv.Options) *amqp10drv.Options {
			o.Address = amqp10drv.AddressActiveMQ
			o.Defaults()
			return o
		}, 5000},
	}
}

// openBacklog opens a driver on a queue of its own, set up and closed at the end.
func openBacklog(t *testing.T, u string, o *amqp10drv.Options) driver.Driver {
	t.Helper()
	spec, _ := driver.Lookup("amqp10")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := spec.Open(ctx, driver.Config{URL: u, Destination: dest(t), RunID: "backlog", Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Teardown(context.Background()); d.Close() })
	if err := d.Setup(ctx); err != nil {
		t.Fatal(err)
	}
	return d
}

// readBacklog reads d's backlog, failing the test on an error.
func readBacklog(t *testing.T, d driver.Driver) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, err := d.(driver.BacklogReader).ReadBacklog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// publishConfirmed sends n messages from one publisher and waits for every disposition.
func publishConfirmed(t *testing.T, d driver.Driver, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	acks := make(chan driver.Ack, 512)
	go func() {
		defer close(acks)
		for i := range n {
			a, err := p.Send(ctx, driver.Message{Value: fmt.Appendf(nil, "backlog %d", i)})
			if err != nil {
				t.Errorf("send %d: %v", i, err)
				return
			}
			acks <- a
		}
	}()
	i := 0
	for a := range acks {
		if err := a.Wait(ctx); err != nil {
			t.Fatalf("disposition %d: %v", i, err)
		}
		i++
	}
}

// waitFor polls cond every 20 ms until it holds, failing after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// TestReadBacklogIsExact: right after n accepted messages reach a queue nobody consumes, the
// backlog read for the reconciliation is n, with no wait. A consumer then attaches with link
// credit 256 and its callback blocks on its first message: the broker has sent it its credit's
// worth, which sit in the client's buffer, seen by no callback, and the read is still n (the
// broker counts a message until it is accepted). Once every message is accepted it is 0.
func TestReadBacklogIsExact(t *testing.T) {
	const n, credit = 2000, 256
	for _, b := range backlogBrokers() {
		t.Run(b.name, func(t *testing.T) {
			d := openBacklog(t, b.url(t), b.opts(&amqp10drv.Options{Credit: credit}))
			publishConfirmed(t, d, n)
			if got := readBacklog(t, d); got != n {
				t.Fatalf("backlog %d right after %d accepted sends, want %d", got, n, n)
			}
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
			waitFor(t, 10*time.Second, "first delivery", func() bool { return seen.Load() == 1 })
			time.Sleep(200 * time.Millisecond) // the rest of the credit arrives meanwhile
			if got := readBacklog(t, d); got != n {
				t.Errorf("backlog %d with the callback holding the first of %d and the credit's %d in the client, want %d", got, n, credit, n)
			}
			close(release)
			waitFor(t, 30*time.Second, "every message received", func() bool { return seen.Load() == n })
			var got int64
			waitFor(t, 5*time.Second, "a backlog of 0 once every message was accepted", func() bool {
				got = readBacklog(t, d)
				return got == 0
			})
		})
	}
}

// TestReadBacklogConcurrent: reads from several goroutines, beside broker-stats samples, take
// turns on the one management link and each gets its own answer (n, on a queue nobody
// consumes): an answer left over from another request would read as another figure.
func TestReadBacklogConcurrent(t *testing.T) {
	const n, readers, reads = 300, 4, 15
	for _, b := range backlogBrokers() {
		t.Run(b.name, func(t *testing.T) {
			d := openBacklog(t, b.url(t), b.opts(&amqp10drv.Options{}))
			publishConfirmed(t, d, n)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for r := range readers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range reads {
						var got int64
						var err error
						if r == 0 { // the runner's sampler asks through BrokerStats
							var st driver.Stats
							st, err = d.(driver.BrokerStats).BrokerStats(ctx)
							got = st.Backlog
						} else {
							got, err = d.(driver.BacklogReader).ReadBacklog(ctx)
						}
						if err != nil || got != n {
							t.Errorf("reader %d, read %d: %d, %v; want %d", r, i, got, err, n)
							return
						}
					}
				}()
			}
			wg.Wait()
			drain(t, d, n)
		})
	}
}

// drain consumes the n messages left in d's queue, so a test leaves no backlog behind (a
// queue that holds messages outlives the run: Artemis and ActiveMQ delete only empty ones).
func drain(t *testing.T, d driver.Driver, n int64) {
	t.Helper()
	ctx := context.Background()
	c, err := d.NewConsumer(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen atomic.Int64
	if err := c.Start(ctx, func([]byte, time.Time) { seen.Add(1) }); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, fmt.Sprintf("the %d messages left drained", n), func() bool { return seen.Load() >= n })
}

// TestReadBacklogAtOverload: four producers publish as fast as they can while one slow
// consumer (2 ms per message) takes from the queue, so a backlog of thousands builds (up to
// the broker's overload figure, where the producers pause: its memory is shared), as at the freeze
// of an overloaded cell. Every read, during the publishing and right after it, is at least
// what was accepted before it less what the callback had seen after it (never below the
// truth: a lower read would report held messages as lost, as the ledger does with it); the
// last one, with the producers done, is at most the truth plus the consumer's credit
// (accepts on their way to the broker). Each read takes less than the runner's 2 s bound
// (the link is opened by a first read before the load, as the stats sampler does in a run).
// The consumer then takes the rest at full speed, and the read comes to 0.
func TestReadBacklogAtOverload(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a backlog for 5 s")
	}
	const producers, credit = 4, 256
	for _, b := range backlogBrokers() {
		t.Run(b.name, func(t *testing.T) {
			d := openBacklog(t, b.url(t), b.opts(&amqp10drv.Options{Credit: credit}))
			overload(t, d, producers, credit, b.overload, 5*time.Second)
		})
	}
}

// overload runs TestReadBacklogAtOverload's load on d for publish, checking every read.
func overload(t *testing.T, d driver.Driver, producers int, credit, pause int64, publish time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var seen, accepted atomic.Int64
	var fast atomic.Bool // the load is over: take the rest at full speed
	if err := c.Start(ctx, func([]byte, time.Time) {
		seen.Add(1)
		if !fast.Load() {
			time.Sleep(2 * time.Millisecond)
		}
	}); err != nil {
		t.Fatal(err)
	}
	readBacklog(t, d)
	var slowest time.Duration
	check := func(when string, before int64) int64 {
		t.Helper()
		start := time.Now()
		got := readBacklog(t, d)
		took, after := time.Since(start), seen.Load()
		slowest = max(slowest, took)
		t.Logf("%s: read %d in %v (accepted %d before, seen %d after)", when, got, took.Round(time.Millisecond), before, after)
		if got < before-after {
			t.Errorf("%s: read %d, below accepted %d - seen %d = %d: %d held messages would read as lost", when, got, before, after, before-after, before-after-got)
		}
		return got
	}
	start := time.Now()
	stop := start.Add(publish)
	var wg sync.WaitGroup
	for id := range producers {
		p, err := d.NewPublisher(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		acks := make(chan driver.Ack, 2048)
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(acks)
			for time.Now().Before(stop) {
				if accepted.Load()-seen.Load() >= pause {
					time.Sleep(10 * time.Millisecond)
					continue
				}
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
					t.Errorf("disposition: %v", err)
				}
				accepted.Add(1)
			}
		}()
	}
	for i := 1; time.Now().Before(stop); i++ {
		time.Sleep(500 * time.Millisecond)
		check(fmt.Sprintf("publishing, read %d", i), accepted.Load())
	}
	wg.Wait()
	elapsed := time.Since(start)
	seenBefore := seen.Load()
	got := check("producers done", accepted.Load())
	truth := accepted.Load() - seenBefore
	t.Logf("accepted %d in %v (%.0f msg/s), consumed %d (%.0f msg/s); backlog at the freeze %d, read %d; slowest read %v",
		accepted.Load(), elapsed.Round(time.Millisecond), float64(accepted.Load())/elapsed.Seconds(), seenBefore,
		float64(seenBefore)/elapsed.Seconds(), truth, got, slowest.Round(time.Millisecond))
	if got > truth+credit {
		t.Errorf("read %d, above accepted %d - seen %d + credit %d = %d", got, accepted.Load(), seenBefore, credit, truth+credit)
	}
	if truth < 1000 {
		t.Errorf("backlog %d at the freeze: the consumer kept up, no overload", truth)
	}
	if slowest >= 2*time.Second {
		t.Errorf("slowest read %v: the runner gives the read 2 s", slowest)
	}
	fast.Store(true)
	waitFor(t, 60*time.Second, "the backlog drained", func() bool { return seen.Load() >= accepted.Load() })
	waitFor(t, 5*time.Second, "a backlog of 0 once every message was accepted", func() bool { return readBacklog(t, d) == 0 })
}
