package drivertest

import (
	"context"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// SubscriptionChecker is implemented by drivers whose subscriptions are broker objects (a
// queue, a consumer group, a durable consumer). RunFanOut uses it to check that Setup created
// every subscription and Teardown removed them; applicable is false when the driver's mode
// has no such object (a core NATS queue group).
type SubscriptionChecker interface {
	SubscriptionExists(ctx context.Context, sub int) (exists, applicable bool, err error)
}

const (
	// FanOutSubscriptions is how many subscriptions RunFanOut opens.
	FanOutSubscriptions = 3
	// FanOutConsumers is how many consumers RunFanOut opens per subscription.
	FanOutConsumers = 2
	// FanOutMessages is how many messages RunFanOut publishes.
	FanOutMessages = 600
)

// fanOutReceipts records what each subscription's consumers got.
type fanOutReceipts struct {
	mu       sync.Mutex
	count    [FanOutSubscriptions]map[uint64]int // per subscription: counter → times received
	perCons  [FanOutSubscriptions * FanOutConsumers]int
	corrupt  []string
	received atomic.Int64
}

func (r *fanOutReceipts) record(sub, id int, value []byte) {
	r.received.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.perCons[id]++
	n, _, bad := checkPayload(value)
	if bad != "" {
		r.corrupt = append(r.corrupt, bad)
		return
	}
	r.count[sub][n]++
}

// RunFanOut is the fan-out conformance test: Setup with FanOutSubscriptions subscriptions,
// FanOutConsumers consumers per subscription (ids 0…5, subscription s has ids 2s and 2s+1),
// 2 publishers sending FanOutMessages messages with distinct bodies. It asserts that the
// driver's Spec allows fan-out with cfg's options, that every subscription received every
// message exactly once across its consumers, that the consumers of a subscription shared its
// messages (each received some: the options must give the broker room to share, Kafka
// partitions), and, through SubscriptionChecker when the driver implements it, that Setup
// created every subscription and Teardown removed them.
func RunFanOut(t *testing.T, name string, cfg driver.Config) {
	t.Helper()
	spec, cfg := withDefaults(t, name, cfg)
	if !driver.Has(spec.FanOut, cfg.Options) {
		t.Fatalf("%s: Spec.FanOut does not allow fan-out with options %+v", name, cfg.Options)
	}
	cfg.Subscriptions = FanOutSubscriptions
	s, fo := openSetUp[driver.FanOut](t, name, spec, cfg, 90*time.Second, "Close")
	defer s.done()
	d, ctx := s.d, s.ctx
	checker, hasChecker := d.(SubscriptionChecker)
	checkSubs := func(when string, want bool) {
		t.Helper()
		if !hasChecker {
			return
		}
		for s := 0; s < FanOutSubscriptions; s++ {
			exists, applicable, err := checker.SubscriptionExists(ctx, s)
			switch {
			case err != nil:
				t.Errorf("SubscriptionExists(%d) %s: %v", s, when, err)
			case applicable && exists != want:
				t.Errorf("subscription %d %s: exists %v, want %v", s, when, exists, want)
			}
		}
	}
	checkSubs("after Setup", true)

	rec := &fanOutReceipts{}
	for s := range rec.count {
		rec.count[s] = make(map[uint64]int, FanOutMessages)
	}
	consumers := make([]driver.Consumer, 0, FanOutSubscriptions*FanOutConsumers)
	for s := 0; s < FanOutSubscriptions; s++ {
		for k := 0; k < FanOutConsumers; k++ {
			id := s*FanOutConsumers + k
			c, err := fo.NewSubscriber(ctx, s, id)
			if err != nil {
				t.Fatalf("NewSubscriber(%d, %d): %v", s, id, err)
			}
			consumers = append(consumers, c)
			defer c.Close()
			s := s
			if err := c.Start(ctx, func(v []byte, _ time.Time) { rec.record(s, id, v) }); err != nil {
				t.Fatalf("subscription %d consumer %d Start: %v", s, id, err)
			}
		}
	}
	const nPub = 2
	publishers := make([]driver.Publisher, nPub)
	for i := range publishers {
		p, err := d.NewPublisher(ctx, i)
		if err != nil {
			t.Fatalf("NewPublisher(%d): %v", i, err)
		}
		publishers[i] = p
		defer p.Close()
	}

	base := time.Now()
	sendAll(t, ctx, "publisher", publishers, func(p int) iter.Seq2[uint64, driver.Message] {
		return func(yield func(uint64, driver.Message) bool) {
			for n := uint64(p); n < FanOutMessages; n += nPub {
				// Every message keyed, over 16 keys: partitioned brokers spread them.
				if !yield(n, driver.Message{Key: []byte(fmt.Sprintf("k%d", n%16)), Value: payload(n, time.Since(base))}) {
					return
				}
			}
		}
	})

	want := int64(FanOutSubscriptions * FanOutMessages)
	awaitReceived(&rec.received, want, 300*time.Millisecond)

	rec.mu.Lock()
	perCons, corrupt := rec.perCons, rec.corrupt
	for s := 0; s < FanOutSubscriptions; s++ {
		var missing, dups []uint64
		for n := uint64(0); n < FanOutMessages; n++ {
			switch c := rec.count[s][n]; {
			case c == 0:
				missing = append(missing, n)
			case c > 1:
				dups = append(dups, n)
			}
		}
		unknown := 0
		for n := range rec.count[s] {
			if n >= FanOutMessages {
				unknown++
			}
		}
		if len(missing) > 0 {
			t.Errorf("subscription %d: %d of %d messages not received within %v (first missing: %v)", s, len(missing), FanOutMessages, receiveTimeout, head(missing))
		}
		if len(dups) > 0 {
			t.Errorf("subscription %d: %d messages received more than once (first: %v)", s, len(dups), head(dups))
		}
		if unknown > 0 {
			t.Errorf("subscription %d: %d messages received that were never sent", s, unknown)
		}
	}
	rec.mu.Unlock()
	t.Logf("%s: sent %d to %d subscriptions, received %d, per consumer %v", name, FanOutMessages, FanOutSubscriptions, rec.received.Load(), perCons)
	if len(corrupt) > 0 {
		t.Errorf("%d corrupt messages, first: %s", len(corrupt), corrupt[0])
	}
	for id, n := range perCons {
		if n == 0 {
			t.Errorf("consumer %d (subscription %d) received nothing: the consumers of a subscription should share its messages", id, id/FanOutConsumers)
		}
	}
	for i, c := range consumers {
		if dr, ok := c.(Dropper); ok && dr.Dropped() > 0 {
			t.Errorf("consumer %d: client dropped %d messages", i, dr.Dropped())
		}
	}

	for i, p := range publishers {
		if err := p.Close(); err != nil {
			t.Errorf("publisher %d Close: %v", i, err)
		}
	}
	for i, c := range consumers {
		if err := c.Close(); err != nil {
			t.Errorf("consumer %d Close: %v", i, err)
		}
	}
	if err := s.teardown(ctx); err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	checkSubs("after Teardown", false)
	if dc, ok := d.(DestinationChecker); ok {
		exists, applicable, err := dc.DestinationExists(ctx)
		if err != nil {
			t.Fatalf("DestinationExists after Teardown: %v", err)
		}
		if applicable && exists {
			t.Errorf("destination %q still exists after Teardown", cfg.Destination)
		}
	}
}
