package itest

import (
	"fmt"
	"testing"
	"time"
)

// Zipf keys through a RabbitMQ consistent-hash exchange over 4 queues: summary.json's
// destinations give each queue's share, and each count is what RabbitMQ itself delivered from
// the queue (its firehose tracer, in a vhost of the test's own), every message received.
func TestConsistentHashSkewPerQueue(t *testing.T) {
	waitTurn(t, 10*time.Second) // counts only, no timing judged: in the waiting tier
	name := fmt.Sprintf("mqbench-itest-chash-%d", time.Now().UnixNano())
	vhostURL := rabbitTracedVhost(t, name)
	var queues []string
	for i := range 4 {
		queues = append(queues, fmt.Sprintf("%s-%d", name, i))
	}
	traced := traceDeliveries(t, vhostURL, queues)
	yaml := fmt.Sprintf(`name: chash
broker:
  type: rabbitmq
  url: %q
  rabbitmq: { exchange: %s, exchange_type: x-consistent-hash, keep: true }
workload:
  destination: %s
  destinations: 4
  producers: 4
  consumers: 4
  duration: 3s
  drain: 2s
  payload: { key: { type: zipf, s: 1.1, keys: 1000 } }
matrix:
  - { size: 256B, rate: 1000 }
`, vhostURL, name, name)
	r := runShape(t, t.TempDir(), "chash", yaml, nil)
	var s struct {
		Cells []struct {
			Sent         uint64 `json:"sent"`
			Received     uint64 `json:"received"`
			Destinations []struct {
				Destination string  `json:"destination"`
				Received    uint64  `json:"received"`
				SharePct    float64 `json:"share_pct"`
			} `json:"destinations"`
		} `json:"cells"`
	}
	decodeSummary(t, r, &s)
	c := s.Cells[0]
	if c.Received != c.Sent || len(c.Destinations) != 4 {
		t.Fatalf("sent %d, received %d, destinations %+v; want all received over 4", c.Sent, c.Received, c.Destinations)
	}
	var total uint64
	lo, hi := 100.0, 0.0
	for i, d := range c.Destinations {
		total += d.Received
		lo, hi = min(lo, d.SharePct), max(hi, d.SharePct)
		if d.Destination != queues[i] {
			t.Errorf("destination %d named %q, want %q", i, d.Destination, queues[i])
			continue
		}
		if n := traced.delivered(t, i, d.Received); n != d.Received {
			t.Errorf("%s: mqbench counts %d, RabbitMQ says it delivered %d from it", d.Destination, d.Received, n)
		}
	}
	if total != c.Received {
		t.Errorf("the destinations add up to %d, the cell received %d", total, c.Received)
	}
	t.Logf("shares %.1f%% to %.1f%% over 4 queues: %+v", lo, hi, c.Destinations)
}
