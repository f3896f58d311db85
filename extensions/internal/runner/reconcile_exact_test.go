package runner

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
)

// fakeReader reads its backlog at the instant (driver.BacklogReader) besides sampling it.
type fakeReader struct {
	*fakeStats
	backlog int64
	err     error
	reads   atomic.Int64
}

func (f *fakeReader) ReadBacklog(context.Context) (int64, error) {
	f.reads.Add(1)
	return f.backlog, f.err
}

// The reconciliation asks a driver that reads its backlog at the instant for that, never for
// its sampled (possibly stale) figure; a failed or unknown exact read excuses nothing; a
// driver without one is asked for its sample; several destinations add up. 100 messages are
// confirmed and none received; the samples say 100, the exact reads less.
func TestReconcilePrefersTheExactRead(t *testing.T) {
	sample := func(backlog int64) *fakeStats {
		return &fakeStats{samples: []fakeSample{{st: driver.Stats{Backlog: backlog, CPUPercent: driver.Unknown, MemoryBytes: driver.Unknown}}}}
	}
	exact := func(backlog int64, err error) *fakeReader {
		return &fakeReader{fakeStats: sample(100), backlog: backlog, err: err}
	}
	cases := []struct {
		name       string
		drvs       []driver.Driver
		held, lost uint64
		samples    bool // BrokerStats was asked
	}{
		{"the exact read, not the stale sample", []driver.Driver{exact(60, nil)}, 60, 40, false},
		{"an exact read that fails excuses nothing", []driver.Driver{exact(60, errors.New("channel closed"))}, 0, 100, false},
		{"an unknown exact read (a stream) excuses nothing", []driver.Driver{exact(driver.Unknown, nil)}, 0, 100, false},
		{"no exact read: the sample", []driver.Driver{sample(70)}, 70, 30, true},
		{"destinations' exact reads add up", []driver.Driver{exact(25, nil), exact(35, nil)}, 60, 40, false},
		{"a destination without an exact read: every sample", []driver.Driver{exact(10, nil), sample(20)}, 100, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := brokerRunner(t, c.drvs[0])
			r.drvs = c.drvs
			l := ledger.New(1, 1)
			for range 100 {
				l.Confirmed(0, l.Issue(0))
			}
			l.Freeze()
			r.reconcile(l)
			if got := l.Tally(); got.Held != c.held || got.Lost != c.lost {
				t.Errorf("held %d, lost %d; want held %d, lost %d", got.Held, got.Lost, c.held, c.lost)
			}
			var sampled bool
			for _, d := range c.drvs {
				switch f := d.(type) {
				case *fakeReader:
					sampled = sampled || f.calls.Load() > 0
					if want := map[bool]int64{false: 1, true: 0}[c.samples]; f.reads.Load() != want {
						t.Errorf("exact reads: %d, want %d", f.reads.Load(), want)
					}
				case *fakeStats:
					sampled = sampled || f.calls.Load() > 0
				}
			}
			if sampled != c.samples {
				t.Errorf("BrokerStats asked: %v, want %v", sampled, c.samples)
			}
		})
	}
}

// The exact read does not wait for a broker-stats sample under way (statsMu held by the
// cell's sampler, asking a management API that is slow at overload).
func TestExactReadDoesNotWaitForASample(t *testing.T) {
	r := brokerRunner(t, &fakeReader{fakeStats: &fakeStats{block: true}, backlog: 7})
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	got := make(chan int64, 1)
	go func() {
		n, _ := r.brokerBacklog()
		got <- n
	}()
	select {
	case n := <-got:
		if n != 7 {
			t.Errorf("backlog %d, want 7", n)
		}
	case <-time.After(time.Second):
		t.Fatal("the exact read waited for the sampler's lock")
	}
}
