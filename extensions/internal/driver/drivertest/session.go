package drivertest

import (
	"context"
	"encoding/binary"
	"fmt"
	neturl "net/url"
	"sync"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Outage takes a broker away and brings it back on the same address: a Proxy in front of it,
// or a test's own server (an embedded one, a private process, the shared one's scripts).
type Outage interface {
	// Down takes the broker away: connections break, new ones are refused.
	Down()
	// Up brings it back on the same address.
	Up(t *testing.T)
}

var _ Outage = (*Proxy)(nil)

// sessionTimeout bounds everything a session does, a broker restart included.
const sessionTimeout = 3 * time.Minute

// marker starts every message of a session, so deliveries of anything else are ignored.
const marker = 0xAB

// Session is a driver opened for a fault test (OpenSession), with one consumer and one
// publisher that have moved 100 messages. Its messages carry a sequence number, so a test
// can tell which of them arrived, and how often.
type Session struct {
	D driver.Driver
	C driver.Consumer
	P driver.Publisher
	// Extra is a second consumer, opened when Restart.Away.CloseConsumer is set.
	Extra driver.Consumer
	// Proxy stands between the driver and the broker unless the test brought its own Outage.
	Proxy *Proxy
	// Outage is Proxy, or the test's own.
	Outage Outage
	// URL is the broker's own address (the driver may be talking to Proxy).
	URL string
	// Ctx ends after 3 minutes, or when the test ends.
	Ctx context.Context

	mu   sync.Mutex
	seen map[uint64]int // sequence number → times received
	next uint64         // the next Send's sequence number
}

// OpenSession opens r.Driver with r.Config (through a Proxy unless r.Outage is set), sets it
// up, starts a consumer (and, for Away.CloseConsumer, a second one), opens a publisher and
// checks that 100 messages go through. Cleanup closes everything, tears down (on a killed
// proxy, so nothing waits on a hung connection; a test that must remove the destination
// anyway does so directly) and closes the driver.
func OpenSession(t *testing.T, r Restart) *Session {
	t.Helper()
	spec, cfg := withDefaults(t, r.Driver, r.Config)
	s := &Session{URL: cfg.URL, Outage: r.Outage, seen: map[uint64]int{}}
	if s.Outage == nil {
		u, err := neturl.Parse(cfg.URL)
		if err != nil {
			t.Fatal(err)
		}
		s.Proxy = StartProxy(t, u.Host)
		s.Outage = s.Proxy
		cfg.URL = s.Proxy.URL(t, cfg.URL)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionTimeout)
	s.Ctx = ctx
	d, err := spec.Open(ctx, cfg)
	if err != nil {
		cancel()
		t.Fatalf("Open: %v", err)
	}
	s.D = d
	t.Cleanup(func() { s.cleanup(cancel) })
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	if s.C = s.consumer(t, 0); r.Away.CloseConsumer > 0 {
		s.Extra = s.consumer(t, 1)
	}
	if s.P, err = d.NewPublisher(ctx, 0); err != nil {
		t.Fatalf("NewPublisher: %v", err)
	}
	for i := 0; i < 100; i++ {
		a, err := s.Send(ctx)
		if err != nil {
			t.Fatalf("Send %d: %v", i, err)
		}
		if a != nil {
			if err := a.Wait(ctx); err != nil {
				t.Fatalf("Ack %d: %v", i, err)
			}
		}
	}
	s.WaitReceived(t, 0, s.Next(), 15*time.Second)
	return s
}

// consumer opens and starts consumer id, recording into s.
func (s *Session) consumer(t *testing.T, id int) driver.Consumer {
	t.Helper()
	c, err := s.D.NewConsumer(s.Ctx, id)
	if err != nil {
		t.Fatalf("NewConsumer(%d): %v", id, err)
	}
	if err := c.Start(s.Ctx, s.record); err != nil {
		_ = c.Close()
		t.Fatalf("consumer %d Start: %v", id, err)
	}
	return c
}

func (s *Session) cleanup(cancel context.CancelFunc) {
	defer cancel()
	for _, c := range []interface{ Close() error }{s.Extra, s.C, s.P} {
		if c != nil {
			_ = c.Close()
		}
	}
	if s.Proxy != nil {
		s.Proxy.Kill()
	}
	ctx, cancelTeardown := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelTeardown()
	_ = s.D.Teardown(ctx)
	_ = s.D.Close()
}

func (s *Session) record(v []byte, _ time.Time) {
	if len(v) < 9 || v[0] != marker {
		return
	}
	s.mu.Lock()
	s.seen[binary.LittleEndian.Uint64(v[1:])]++
	s.mu.Unlock()
}

// Send sends the session's next message (64 bytes) from P.
func (s *Session) Send(ctx context.Context) (driver.Ack, error) {
	s.mu.Lock()
	n := s.next
	s.next++
	s.mu.Unlock()
	v := make([]byte, 64)
	v[0] = marker
	binary.LittleEndian.PutUint64(v[1:], n)
	return s.P.Send(ctx, driver.Message{Value: v})
}

// Next is the sequence number the next Send uses.
func (s *Session) Next() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Received counts the distinct messages from..to-1 received, and their extra copies.
func (s *Session) Received(from, to uint64) (n, dups int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, c := range s.seen {
		if k >= from && k < to {
			n++
			dups += c - 1
		}
	}
	return n, dups
}

// WaitReceived fails the test unless every message from..to-1 arrives within the given time.
func (s *Session) WaitReceived(t *testing.T, from, to uint64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, _ := s.Received(from, to)
		if n == int(to-from) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("received %d of the %d messages %d..%d within %v%s", n, to-from, from, to-1, within, reconnects(s.C))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// reconnector is implemented by publishers and consumers that reconnect by themselves.
type reconnector interface{ Reconnects() int64 }

// reconnects names c's reconnections for a failure message, when it counts them.
func reconnects(c any) string {
	if r, ok := c.(reconnector); ok {
		return fmt.Sprintf(" (consumer reconnects %d)", r.Reconnects())
	}
	return ""
}
