package itest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// Zipf keys through a RabbitMQ consistent-hash exchange over 4 queues: summary.json's
// destinations give each queue's share, and each count is what RabbitMQ itself says the queue
// took (its management API), every message received.
func TestConsistentHashSkewPerQueue(t *testing.T) {
	waitTurn(t, 10*time.Second) // counts only, no timing judged: in the waiting tier
	name := fmt.Sprintf("mqbench-itest-chash-%d", time.Now().UnixNano())
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
`, stampURLs["rabbitmq"], name, name)
	t.Cleanup(func() { dropRabbit(t, name, 4) })
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
		if want := fmt.Sprintf("%s-%d", name, i); d.Destination != want {
			t.Errorf("destination %d named %q, want %q", i, d.Destination, want)
		}
		if n := rabbitQueuePublished(t, d.Destination, d.Received); n != d.Received {
			t.Errorf("%s: mqbench counts %d, RabbitMQ says %d routed to it", d.Destination, d.Received, n)
		}
	}
	if total != c.Received {
		t.Errorf("the destinations add up to %d, the cell received %d", total, c.Received)
	}
	t.Logf("shares %.1f%% to %.1f%% over 4 queues: %+v", lo, hi, c.Destinations)
}

// rabbitQueuePublished is how many messages RabbitMQ routed to queue q (its management API's
// message_stats.publish, refreshed every few seconds: read until it reaches want or 20 s pass).
func rabbitQueuePublished(t *testing.T, q string, want uint64) uint64 {
	t.Helper()
	var got uint64
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:15672/api/queues/%2F/"+url.PathEscape(q), nil)
		req.SetBasicAuth("guest", "guest")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v struct {
			Stats struct {
				Publish uint64 `json:"publish"`
			} `json:"message_stats"`
		}
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got = v.Stats.Publish; got == want {
			break
		}
	}
	return got
}

// dropRabbit deletes the run's n queues and its exchange, kept for the count.
func dropRabbit(t *testing.T, name string, n int) {
	conn, err := amqp091.Dial(stampURLs["rabbitmq"])
	if err != nil {
		t.Log(err)
		return
	}
	defer conn.Close()
	ch, err := conn.Channel()
	if err != nil {
		return
	}
	for i := range n {
		_, _ = ch.QueueDelete(fmt.Sprintf("%s-%d", name, i), false, false, false)
	}
	_ = ch.ExchangeDelete(name, false, false)
}
