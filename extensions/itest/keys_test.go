package itest

import (
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/mqbench/xk6-mqbench/internal/payload"
)

// Zipf-distributed keys on a 6-partition Kafka topic: summary.json's partitions show the skew,
// each partition's share within 2 points of the theory (the keys' Zipf weights summed over
// the keys Kafka's partitioner sends to it), and the partitions add up to what was sent.
func TestZipfKeysSpreadOverPartitions(t *testing.T) {
	waitTurn(t, 9*time.Second) // counts and shares only, no timing judged: in the waiting tier
	const yaml = `name: zipf-keys
broker:
  type: kafka
  url: kafka://127.0.0.1:9092
  kafka: { topic: { partitions: 6 } }
workload:
  destination: mqbench-itest-zipf
  consumers: 1
  payload: { key: { type: zipf, s: 1.1, keys: 1000 } }
  warmup: 1s
  duration: 5s
  drain: 2s
matrix:
  - { size: 256B, rate: 2000 }
`
	r := runShape(t, t.TempDir(), "zipf-keys", yaml, nil)
	var s struct {
		Cells []struct {
			Sent       uint64 `json:"sent"`
			Warm       uint64 `json:"sent_warmup"`
			Partitions []struct {
				Partition int32   `json:"partition"`
				Messages  int64   `json:"messages"`
				SharePct  float64 `json:"share_pct"`
			} `json:"partitions"`
		} `json:"cells"`
	}
	decodeSummary(t, r, &s)
	c := s.Cells[0]
	keys, err := payload.NewKeys("zipf", 1000, 1.1, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	theory := make([]float64, 6)
	part := kgo.StickyKeyPartitioner(nil).ForTopic("mqbench-itest-zipf")
	for i := range 1000 {
		theory[part.Partition(&kgo.Record{Key: payload.Key(i)}, 6)] += 100 * keys.Share(i)
	}
	if len(c.Partitions) != 6 {
		t.Fatalf("partitions %+v, want 6", c.Partitions)
	}
	var total int64
	for _, p := range c.Partitions {
		total += p.Messages
		if math.Abs(p.SharePct-theory[p.Partition]) > 2 {
			t.Errorf("partition %d: %.1f%% of the messages, the theory %.1f%%", p.Partition, p.SharePct, theory[p.Partition])
		}
	}
	if uint64(total) != c.Sent+c.Warm {
		t.Errorf("the partitions took %d messages; sent %d (+%d in the warm-up)", total, c.Sent, c.Warm)
	}
	t.Logf("partitions %+v, theory %.1f", c.Partitions, theory)
}
