package itest

import (
	"testing"
	"time"
)

// A size mix on in-process NATS: each size's messages are its share of those sent (within
// one), every one is received, the bytes are the sizes' sum, and each size has its own
// latency distribution.
func TestSizeMix(t *testing.T) {
	waitTurn(t, 8*time.Second) // counts and bytes only, no timing judged: in the waiting tier
	const yaml = `name: mix
broker: { type: nats, url: embedded }
workload: { destination: itest.mix, producers: 2, consumers: 1, warmup: 1s, duration: 5s, drain: 2s }
matrix:
  - { size: { 256B: 70%, 4KB: 25%, 64KB: 5% }, rate: 1000 }
`
	r := runShape(t, t.TempDir(), "mix", yaml, nil)
	var s struct {
		Cells []struct {
			Size      string `json:"size"`
			Sent      uint64 `json:"sent"`
			Received  uint64 `json:"received"`
			BytesSent uint64 `json:"bytes_sent"`
			Sizes     []struct {
				Size      string  `json:"size"`
				SizeBytes uint64  `json:"size_bytes"`
				SharePct  float64 `json:"share_pct"`
				Sent      uint64  `json:"sent"`
				Received  uint64  `json:"received"`
				E2E       stats   `json:"e2e_latency_us"`
			} `json:"sizes"`
		} `json:"cells"`
	}
	decodeSummary(t, r, &s)
	c := s.Cells[0]
	if c.Size != "mix" || len(c.Sizes) != 3 || c.Received != c.Sent {
		t.Fatalf("size %q, %d sizes, sent %d, received %d; want mix, 3, all received", c.Size, len(c.Sizes), c.Sent, c.Received)
	}
	var sent, received, bytes uint64
	for _, k := range c.Sizes {
		want := float64(c.Sent) * k.SharePct / 100
		if f := float64(k.Sent); f < want-1 || f > want+1 {
			t.Errorf("%s: %d sent, its %v%% of %d is %.1f", k.Size, k.Sent, k.SharePct, c.Sent, want)
		}
		if k.Received != k.Sent || k.E2E.Count != int64(k.Received) || k.E2E.P["p50"] <= 0 {
			t.Errorf("%s: sent %d, received %d, e2e count %d p50 %v µs", k.Size, k.Sent, k.Received, k.E2E.Count, k.E2E.P["p50"])
		}
		sent, received, bytes = sent+k.Sent, received+k.Received, bytes+k.Sent*k.SizeBytes
	}
	if sent != c.Sent || received != c.Received || bytes != c.BytesSent {
		t.Errorf("the sizes add up to %d sent, %d received, %d bytes; the cell says %d, %d, %d", sent, received, bytes, c.Sent, c.Received, c.BytesSent)
	}
}
