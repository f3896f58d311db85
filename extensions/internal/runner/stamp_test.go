package runner

import (
	"context"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// With the stamp in a header, a 12-byte body still carries the full stamp: counted exactly,
// with intended-time latency (the compact header has none), and the bytes are the bodies'
// alone; on in-process NATS, two producers, precise pacing's path (Publish).
func TestStampInHeader(t *testing.T) {
	sc := embeddedScenario(scenario.Cell{ID: "hdr", Size: 12, SizeLabel: "12B", Rate: 100000, Batch: 10, Producers: 2, Consumers: 1, Duration: time.Second})
	sc.Workload.Payload.Stamp = scenario.StampHeader
	r := connected(t, sc)
	ctx := context.Background()
	start := time.Now() // after the runner's epoch: intended times are then non-negative
	for i := uint64(0); i < 100; i++ {
		r.Publish(ctx, 0, start, i)
	}
	waitFor(t, func() bool { return r.cells[0].received.Load() == 1000 })
	r.finalize(0, false)
	c := r.Report().Cells[0]
	if c.Header != "full" || c.Ledger.Unique != 1000 || c.Ledger.Lost != 0 || c.BytesSent != 12000 || c.BytesReceived != 12000 {
		t.Errorf("header %s, ledger %+v, bytes sent %d received %d; want full, 1000 unique, 12000 bytes each way", c.Header, c.Ledger, c.BytesSent, c.BytesReceived)
	}
	if c.E2ELatency.Count != 1000 || c.E2EIntendedLatency.Count != 1000 {
		t.Errorf("e2e %d, intended %d; want 1000 each", c.E2ELatency.Count, c.E2EIntendedLatency.Count)
	}
	if r.Report().Foreign != 0 {
		t.Errorf("%d messages counted as foreign", r.Report().Foreign)
	}
}
