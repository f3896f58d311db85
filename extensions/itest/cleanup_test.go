package itest

import (
	"strings"
	"sync"
	"testing"
)

// acks=all waits for the broker, acks=0 only for the socket: the publish latency must show
// it, or the setting never reached the producer.
func TestKafkaAcksReachTheBroker(t *testing.T) {
	// Both runs at once (the gap is a broker round trip against a socket write: milliseconds
	// against microseconds, which two runs side by side do not blur); each its own topic.
	var mu sync.Mutex
	p50 := map[string]float64{}
	t.Run("runs", func(t *testing.T) {
		for _, f := range []string{"kafka-acks-0", "kafka-acks-all"} {
			t.Run(f, func(t *testing.T) {
				t.Parallel()
				r := runScenario(t, "extensions/itest/testdata/"+f+".yaml")
				if r.code != 0 || r.summary == nil {
					t.Fatalf("%s: exit %d\n%s", f, r.code, r)
				}
				mu.Lock()
				p50[f] = r.summary.Cells[0].PublishLatency.P["p50"]
				mu.Unlock()
				if want := strings.TrimPrefix(f, "kafka-"); !strings.Contains(r.summary.Broker.AckMode, want) {
					t.Errorf("%s: ack mode %q", f, r.summary.Broker.AckMode)
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	t.Logf("publish p50: acks=0 %.0fus, acks=all %.0fus", p50["kafka-acks-0"], p50["kafka-acks-all"])
	if !(p50["kafka-acks-all"] > p50["kafka-acks-0"]) {
		t.Errorf("publish p50 with acks=all (%.0fus) is not above acks=0 (%.0fus)", p50["kafka-acks-all"], p50["kafka-acks-0"])
	}
}
