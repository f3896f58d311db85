// Package drivertest is a conformance suite every mqbench driver runs against a real broker:
// open, set up, publish from several connections, consume, check that exactly the sent messages
// arrived (no loss, no duplicates, intact payloads, sane latencies), tear down, close.
//
// A driver package uses it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		drivertest.Run(t, "nats", driver.Config{URL: "embedded", Destination: "mqbench.test", Options: &natsdrv.Options{Mode: "core"}})
//	}
package drivertest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
)

// DestinationChecker is implemented by drivers whose destination is an object on the broker (a
// JetStream stream, a Redis stream). The suite uses it to check that Setup created the
// destination and Teardown removed it. applicable is false when the driver's mode has no such
// object (core NATS subjects, Redis pub/sub channels).
type DestinationChecker interface {
	DestinationExists(ctx context.Context) (exists, applicable bool, err error)
}

// Dropper is implemented by consumers that can count messages the client library discarded.
type Dropper interface {
	Dropped() int64
}

// Messages is how many messages Run publishes, unpaced, so the slowest one's send→receive
// time is about how long the broker takes to drain them all. A driver's suite may lower it
// for a broker that drains slowly (ElasticMQ: ~400 msg/s on a busy 2-core machine), so that
// maxLatency still means "no message was held back", not "the broker is fast".
var Messages = 2000

// UseMessages sets Messages to n for the rest of t, for a broker that drains slowly beside
// others of the same package that keep the default.
func UseMessages(t *testing.T, n int) {
	t.Helper()
	prev := Messages
	Messages = n
	t.Cleanup(func() { Messages = prev })
}

const (
	// PayloadSize is the size of each message Run publishes.
	PayloadSize = 64

	receiveTimeout = 10 * time.Second
	maxLatency     = 5 * time.Second
)

// Run is the conformance test with 2 publishers and 1 consumer.
func Run(t *testing.T, name string, cfg driver.Config) {
	t.Helper()
	run(t, name, cfg, 2, 1)
}

// RunShared is the conformance test with 2 publishers and 2 consumers; it asserts that the
// consumers share the messages (each message reaches exactly one consumer). Not for drivers
// that fan out to every consumer (Redis pub/sub).
func RunShared(t *testing.T, name string, cfg driver.Config) {
	t.Helper()
	run(t, name, cfg, 2, 2)
}

// receipts records what the consumers got.
type receipts struct {
	mu       sync.Mutex
	count    map[uint64]int // counter → times received
	perCons  []int
	corrupt  []string
	minLat   time.Duration
	maxLat   time.Duration
	received atomic.Int64
}

func (r *receipts) record(consumer int, base time.Time, value []byte, at time.Time) {
	r.received.Add(1)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.perCons[consumer]++
	n, sent, bad := checkPayload(value)
	if bad != "" {
		r.corrupt = append(r.corrupt, bad)
		return
	}
	r.count[n]++
	lat := at.Sub(base) - sent
	if r.maxLat == 0 && r.minLat == 0 {
		r.minLat, r.maxLat = lat, lat
	}
	r.minLat = min(r.minLat, lat)
	r.maxLat = max(r.maxLat, lat)
}

// checkPayload reads a payload made by payload: its counter and send time, or what is wrong
// with it.
func checkPayload(value []byte) (n uint64, sent time.Duration, bad string) {
	if len(value) != PayloadSize {
		return 0, 0, fmt.Sprintf("payload of %d bytes, want %d", len(value), PayloadSize)
	}
	n = binary.LittleEndian.Uint64(value[0:8])
	for i := 16; i < PayloadSize; i++ {
		if value[i] != fill(n, i) {
			return n, 0, fmt.Sprintf("message %d: byte %d is %#x, want %#x", n, i, value[i], fill(n, i))
		}
	}
	return n, time.Duration(binary.LittleEndian.Uint64(value[8:16])), ""
}

func fill(n uint64, i int) byte { return byte(n*31 + uint64(i)*7) }

func payload(n uint64, sent time.Duration) []byte {
	b := make([]byte, PayloadSize)
	binary.LittleEndian.PutUint64(b[0:8], n)
	binary.LittleEndian.PutUint64(b[8:16], uint64(sent))
	for i := 16; i < PayloadSize; i++ {
		b[i] = fill(n, i)
	}
	return b
}

// withDefaults returns cfg with Options filled from the registered spec when nil.
func withDefaults(t testing.TB, name string, cfg driver.Config) (driver.Spec, driver.Config) {
	t.Helper()
	spec, err := driver.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Options == nil {
		o := spec.NewOptions()
		o.Defaults()
		cfg.Options = o
	}
	if cfg.RunID == "" {
		cfg.RunID = fmt.Sprintf("t%d", time.Now().UnixNano())
	}
	return spec, cfg
}

func run(t *testing.T, name string, cfg driver.Config, nPub, nCons int) {
	t.Helper()
	spec, cfg := withDefaults(t, name, cfg)
	s, d := openSetUp[driver.Driver](t, name, spec, cfg, 60*time.Second, "Close", "second Close")
	defer s.done()
	ctx := s.ctx
	checker, hasChecker := d.(DestinationChecker)
	if hasChecker {
		exists, applicable, err := checker.DestinationExists(ctx)
		if err != nil {
			t.Fatalf("DestinationExists after Setup: %v", err)
		}
		if applicable && !exists {
			t.Fatalf("destination %q does not exist after Setup", cfg.Destination)
		}
	}

	base := time.Now()
	rec := &receipts{count: make(map[uint64]int, Messages), perCons: make([]int, nCons)}

	consumers := make([]driver.Consumer, nCons)
	for i := range consumers {
		c, err := d.NewConsumer(ctx, i)
		if err != nil {
			t.Fatalf("NewConsumer(%d): %v", i, err)
		}
		consumers[i] = c
		defer c.Close()
		i := i
		if err := c.Start(ctx, func(v []byte, at time.Time) { rec.record(i, base, v, at) }); err != nil {
			t.Fatalf("consumer %d Start: %v", i, err)
		}
	}
	publishers := make([]driver.Publisher, nPub)
	for i := range publishers {
		p, err := d.NewPublisher(ctx, i)
		if err != nil {
			t.Fatalf("NewPublisher(%d): %v", i, err)
		}
		publishers[i] = p
		defer p.Close()
	}

	// Publish: publisher p sends counters p, p+nPub, p+2·nPub, …. Where the driver carries a
	// stamp in a header, every other message sends its first header.Size bytes that way, and
	// its consumer must hand back stamp‖body: the same bytes.
	stamps := driver.Has(spec.HeaderStamp, cfg.Options)
	nAcks := sendAll(t, ctx, "publisher", publishers, func(p int) iter.Seq2[uint64, driver.Message] {
		return func(yield func(uint64, driver.Message) bool) {
			for n := uint64(p); n < uint64(Messages); n += uint64(nPub) {
				m := driver.Message{Value: payload(n, time.Since(base))}
				if stamps && n%2 == 1 {
					m.Stamp, m.Value = m.Value[:header.Size], m.Value[header.Size:]
				}
				if n%3 == 0 {
					m.Key = []byte(fmt.Sprintf("k%d", n%10))
				}
				if !yield(n, m) {
					return
				}
			}
		}
	})

	awaitReceived(&rec.received, int64(Messages), 200*time.Millisecond)

	rec.mu.Lock()
	var missing, dups []uint64
	for n := uint64(0); n < uint64(Messages); n++ {
		switch c := rec.count[n]; {
		case c == 0:
			missing = append(missing, n)
		case c > 1:
			dups = append(dups, n)
		}
	}
	unknown := 0
	for n := range rec.count {
		if n >= uint64(Messages) {
			unknown++
		}
	}
	got, perCons, corrupt := rec.received.Load(), append([]int(nil), rec.perCons...), rec.corrupt
	minLat, maxLat := rec.minLat, rec.maxLat
	rec.mu.Unlock()

	t.Logf("%s: sent %d (stamps in a header: %v), acked %d, received %d %v, latency min %v max %v", name, Messages, stamps, nAcks, got, perCons, minLat, maxLat)
	for i, c := range consumers {
		if dr, ok := c.(Dropper); ok && dr.Dropped() > 0 {
			t.Errorf("consumer %d: client dropped %d messages", i, dr.Dropped())
		}
	}
	if len(corrupt) > 0 {
		t.Errorf("%d corrupt messages, first: %s", len(corrupt), corrupt[0])
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d messages not received within %v (first missing: %v)", len(missing), Messages, receiveTimeout, head(missing))
	}
	if len(dups) > 0 {
		t.Errorf("%d messages received more than once (first: %v)", len(dups), head(dups))
	}
	if unknown > 0 {
		t.Errorf("%d messages received that were never sent", unknown)
	}
	if got != int64(Messages) && len(missing) == 0 && len(dups) == 0 {
		t.Errorf("received %d deliveries, want %d", got, Messages)
	}
	if minLat <= 0 {
		t.Errorf("minimum send→receive time %v, want > 0", minLat)
	}
	if maxLat >= maxLatency {
		t.Errorf("maximum send→receive time %v, want < %v", maxLat, maxLatency)
	}

	// Close everything (twice: Close must be idempotent), then tear down.
	for i, p := range publishers {
		if err := p.Close(); err != nil {
			t.Errorf("publisher %d Close: %v", i, err)
		}
		_ = p.Close()
	}
	for i, c := range consumers {
		closeTwice(t, "consumer", i, c, nil)
	}
	if err := s.teardown(ctx); err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	if hasChecker {
		exists, applicable, err := checker.DestinationExists(ctx)
		if err != nil {
			t.Fatalf("DestinationExists after Teardown: %v", err)
		}
		if applicable && exists {
			t.Errorf("destination %q still exists after Teardown", cfg.Destination)
		}
	}
}

func head(ns []uint64) []uint64 {
	if len(ns) > 10 {
		return ns[:10]
	}
	return ns
}

// Unreachable opens the driver against rawURL, which must point at a closed port (for example
// "nats://127.0.0.1:1"), and asserts an *driver.UnreachableError within 5 s whose message
// names the address and does not contain the URL's password, if any.
func Unreachable(t *testing.T, name, rawURL string, opts driver.Options) {
	t.Helper()
	cfg := driver.Config{URL: rawURL, Destination: "mqbench.unreachable", Options: opts}
	spec, cfg := withDefaults(t, name, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	d, err := spec.Open(ctx, cfg)
	elapsed := time.Since(start)
	if err == nil {
		d.Close()
		t.Fatalf("Open(%s) succeeded, want an unreachable error", rawURL)
	}
	t.Logf("Open(%s) after %v: %v", rawURL, elapsed, err)
	var ue *driver.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("Open error is %T (%v), want *driver.UnreachableError", err, err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("Open took %v to report an unreachable broker, want < 5s", elapsed)
	}
	if ue.Broker != name {
		t.Errorf("UnreachableError.Broker = %q, want %q", ue.Broker, name)
	}
	u, perr := url.Parse(rawURL)
	if perr != nil {
		t.Fatalf("bad test URL %q: %v", rawURL, perr)
	}
	if !strings.Contains(err.Error(), u.Host) {
		t.Errorf("error %q does not name the address %s", err, u.Host)
	}
	if pw, ok := u.User.Password(); ok && pw != "" {
		if strings.Contains(err.Error(), pw) || strings.Contains(ue.Address, pw) {
			t.Errorf("error %q leaks the password", err)
		}
	}
	if u.User != nil && strings.Contains(ue.Address, u.User.Username()+"@") {
		t.Errorf("UnreachableError.Address %q carries credentials", ue.Address)
	}
}

// Benchmark publishes b.N messages of size bytes through one publisher connection and one
// consumer connection as fast as the publisher goes, waits until all arrived, and reports
// msgs/s and MB/s (end to end: from the first Send to the last receipt).
func Benchmark(b *testing.B, name string, cfg driver.Config, size int) {
	b.Helper()
	if size < 8 {
		size = 8
	}
	spec, cfg := withDefaults(b, name, cfg)
	s, d := openSetUp[driver.Driver](b, name, spec, cfg, 10*time.Minute)
	defer s.done()
	ctx := s.ctx

	var received atomic.Int64
	var bad atomic.Int64
	c, err := d.NewConsumer(ctx, 0)
	if err != nil {
		b.Fatalf("NewConsumer: %v", err)
	}
	defer c.Close()
	if err := c.Start(ctx, func(v []byte, _ time.Time) {
		if len(v) != size {
			bad.Add(1)
		}
		received.Add(1)
	}); err != nil {
		b.Fatalf("Start: %v", err)
	}
	p, err := d.NewPublisher(ctx, 0)
	if err != nil {
		b.Fatalf("NewPublisher: %v", err)
	}
	defer p.Close()

	// Fresh buffers: a JetStream Ack may keep referencing its value until it resolves.
	bufs := make([][]byte, 64)
	for i := range bufs {
		bufs[i] = make([]byte, size)
	}
	var acks []driver.Ack
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		v := bufs[i%len(bufs)]
		binary.LittleEndian.PutUint64(v, uint64(i))
		a, err := p.Send(ctx, driver.Message{Value: v})
		if err != nil {
			b.Fatalf("Send %d: %v", i, err)
		}
		if a != nil {
			acks = append(acks, a)
			if len(acks) >= 4096 {
				for _, a := range acks {
					if err := a.Wait(ctx); err != nil {
						b.Fatalf("ack: %v", err)
					}
				}
				acks = acks[:0]
			}
		}
	}
	if err := p.Flush(ctx); err != nil {
		b.Fatalf("Flush: %v", err)
	}
	for _, a := range acks {
		if err := a.Wait(ctx); err != nil {
			b.Fatalf("ack: %v", err)
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for received.Load() < int64(b.N) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Microsecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if got := received.Load(); got < int64(b.N) {
		dropped := int64(0)
		if dr, ok := c.(Dropper); ok {
			dropped = dr.Dropped()
		}
		b.Fatalf("received %d of %d messages (client dropped %d)", got, b.N, dropped)
	}
	if bad.Load() > 0 {
		b.Fatalf("%d messages with the wrong size", bad.Load())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "msgs/s")
}
