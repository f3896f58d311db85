package runner

import (
	"context"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// Messages the broker confirmed and still holds when the drain ends are held, not lost;
// where the broker cannot say what it holds (core NATS keeps nothing), they stay lost. The
// consumer is closed before anything is sent, so nothing can arrive: JetStream keeps the
// messages for the run's durable consumer, core NATS drops them.
func TestReconcileWithTheBroker(t *testing.T) {
	for _, tc := range []struct {
		mode       string
		lost, held uint64
	}{{"jetstream", 0, 100}, {"core", 100, 0}} {
		t.Run(tc.mode, func(t *testing.T) {
			o := &natsdrv.Options{Mode: tc.mode}
			if tc.mode == "jetstream" {
				o.Storage = "memory"
			}
			o.Defaults()
			sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 128, SizeLabel: "128B", Rate: 100000, Batch: 10, Producers: 1, Consumers: 1, Duration: time.Second})
			sc.Broker.Options = o
			sc.Workload.Consumers = 1
			r := connected(t, sc)
			for _, c := range r.cons {
				if err := c.Close(); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			if _, ok := r.Count(0, catalog.MessagesHeld); ok {
				t.Fatal("held judged before the drain ended")
			}
			start := time.Now().Add(-time.Second)
			for i := uint64(0); i < 10; i++ {
				if res := r.Publish(ctx, 0, start, i); res.Errors != 0 {
					t.Fatalf("iteration %d: %+v", i, res)
				}
			}
			// Every send confirmed (acknowledged, or taken by the client), none received.
			waitFor(t, func() bool { return r.cells[0].ledger.Tally().Lost == 100 })
			got := r.finalize(0, false)
			if got.Lost != tc.lost || got.Held != tc.held || got.Unconfirmed != 0 || got.Issued != 100 || got.Unique != 0 {
				t.Fatalf("tally %+v, want lost %d, held %d, nothing unconfirmed", got, tc.lost, tc.held)
			}
			if rep := r.Report().Cells[0].Ledger; rep.Lost != tc.lost || rep.Held != tc.held {
				t.Fatalf("report's ledger %+v, want lost %d, held %d", rep, tc.lost, tc.held)
			}
			// What thresholds are judged on.
			for m, want := range map[string]uint64{catalog.MessagesLost: tc.lost, catalog.MessagesHeld: tc.held, catalog.MessagesUnconfirmed: 0} {
				if v, ok := r.Count(0, m); !ok || v != float64(want) {
					t.Errorf("Count(%s) = %v, %v; want %d", m, v, ok, want)
				}
			}
		})
	}
}

// Every acknowledged send is confirmed: a JetStream cell that received everything has
// nothing unconfirmed, and nothing lost.
func TestAcknowledgedSendsAreConfirmed(t *testing.T) {
	o := &natsdrv.Options{Mode: "jetstream", Storage: "memory"}
	o.Defaults()
	sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 128, SizeLabel: "128B", Rate: 100000, Batch: 10, Producers: 2, Consumers: 1, Duration: time.Second})
	sc.Broker.Options = o
	sc.Workload.Consumers = 1
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now().Add(-time.Second)
	for i := uint64(0); i < 50; i++ {
		r.Publish(ctx, 0, start, i)
	}
	waitFor(t, func() bool {
		tl := r.cells[0].ledger.Tally()
		return tl.Unique == 500 && tl.Unconfirmed == 0
	})
	if got := r.finalize(0, false); got.Lost != 0 || got.Unconfirmed != 0 || got.Held != 0 || got.Issued != 500 {
		t.Fatalf("tally %+v", got)
	}
}
