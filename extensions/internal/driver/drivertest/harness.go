package drivertest

import (
	"context"
	"fmt"
	"iter"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// setUp is a driver a test opened and set up (openSetUp); the test defers done.
type setUp struct {
	t        testing.TB
	d        driver.Driver
	ctx      context.Context // ends after openSetUp's timeout, cancelled by done
	cancel   context.CancelFunc
	closes   []string // done's Close failures, one Close each
	tornDown bool
}

// openSetUp opens name's driver (spec) with cfg under a context that ends after timeout,
// fails the test unless the driver implements T (driver.Driver for no check), runs Setup, and
// returns the driver and the driver as T. The caller defers s.done, which closes the driver
// once per label in closes (see done); a failure inside openSetUp runs it before returning.
func openSetUp[T any](t testing.TB, name string, spec driver.Spec, cfg driver.Config, timeout time.Duration, closes ...string) (s *setUp, as T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	s = &setUp{t: t, ctx: ctx, cancel: cancel, closes: closes, tornDown: true}
	ok := false
	defer func() {
		if !ok {
			s.done()
		}
	}()
	d, err := spec.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	s.d = d
	as, isT := d.(T)
	if !isT {
		t.Fatalf("%s: driver %T does not implement %s", name, d, reflect.TypeFor[T]())
	}
	if err := d.Setup(ctx); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	s.tornDown, ok = false, true
	return s, as
}

// teardown runs the driver's Teardown with ctx; done then does not.
func (s *setUp) teardown(ctx context.Context) error {
	s.tornDown = true
	return s.d.Teardown(ctx)
}

// done tears the driver down unless teardown ran or Setup did not (an error is ignored: the
// test already failed), closes it once per label of openSetUp's closes (Close must be
// idempotent), failing the test with "label: error" on an error (no label: once, the error
// ignored), and cancels the context.
func (s *setUp) done() {
	defer s.cancel()
	if s.d == nil {
		return
	}
	if !s.tornDown {
		_ = s.d.Teardown(context.Background())
	}
	if len(s.closes) == 0 {
		_ = s.d.Close()
	}
	for _, l := range s.closes {
		if err := s.d.Close(); err != nil {
			s.t.Errorf("%s: %v", l, err)
		}
	}
}

// sendAll sends from every publisher, each from its own goroutine (Send is serialised per
// publisher), the messages msgs(p) yields for publisher p, keyed by the number a failure names;
// then flushes it (10 s). It fails the test on the first error, then waits up to 10 s for
// every acknowledgement and returns how many there were. what names a publisher in failures
// ("publisher", "requester").
func sendAll(t *testing.T, ctx context.Context, what string, pubs []driver.Publisher, msgs func(p int) iter.Seq2[uint64, driver.Message]) (nAcks int) {
	t.Helper()
	var wg sync.WaitGroup
	sendErrs := make([]error, len(pubs))
	acks := make([][]driver.Ack, len(pubs))
	for p, pub := range pubs {
		wg.Go(func() {
			for n, m := range msgs(p) {
				a, err := pub.Send(ctx, m)
				if err != nil {
					sendErrs[p] = fmt.Errorf("%s %d Send(%d): %w", what, p, n, err)
					return
				}
				if a != nil {
					acks[p] = append(acks[p], a)
				}
			}
			fctx, fcancel := context.WithTimeout(ctx, 10*time.Second)
			defer fcancel()
			if err := pub.Flush(fctx); err != nil {
				sendErrs[p] = fmt.Errorf("%s %d Flush: %w", what, p, err)
			}
		})
	}
	wg.Wait()
	for _, err := range sendErrs {
		if err != nil {
			t.Fatal(err)
		}
	}
	actx, acancel := context.WithTimeout(ctx, 10*time.Second)
	defer acancel()
	for p := range acks {
		for i, a := range acks[p] {
			if err := a.Wait(actx); err != nil {
				t.Fatalf("%s %d ack %d: %v", what, p, i, err)
			}
			nAcks++
		}
	}
	return nAcks
}

// closeTwice closes c, the what number i, twice (Close must be idempotent), running between
// (when not nil) after the first; it fails the test on the first Close's error and when both
// took more than 6 s (Close must be bounded).
func closeTwice(t *testing.T, what string, i int, c interface{ Close() error }, between func()) {
	t.Helper()
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Errorf("%s %d Close: %v", what, i, err)
	}
	if between != nil {
		between()
	}
	_ = c.Close()
	if el := time.Since(start); el > 6*time.Second {
		t.Errorf("%s %d Close took %v", what, i, el)
	}
}

// awaitReceived waits until received reaches want or receiveTimeout passed, then settle more
// (for duplicates to show up).
func awaitReceived(received *atomic.Int64, want int64, settle time.Duration) {
	deadline := time.Now().Add(receiveTimeout)
	for received.Load() < want && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(settle)
}
