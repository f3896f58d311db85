package itest

import (
	"strings"
	"testing"
)

// acks=all waits for the broker, acks=0 only for the socket: the publish latency must show
// it, or the setting never reached the producer.
func TestKafkaAcksReachTheBroker(t *testing.T) {
	p50 := map[string]float64{}
	for _, f := range []string{"kafka-acks-0", "kafka-acks-all"} {
		r := runScenario(t, "extensions/itest/testdata/"+f+".yaml")
		if r.code != 0 || r.summary == nil {
			t.Fatalf("%s: exit %d\n%s", f, r.code, r)
		}
		p50[f] = r.summary.Cells[0].PublishLatency.P["p50"]
		if want := strings.TrimPrefix(f, "kafka-"); !strings.Contains(r.summary.Broker.AckMode, want) {
			t.Errorf("%s: ack mode %q", f, r.summary.Broker.AckMode)
		}
	}
	t.Logf("publish p50: acks=0 %.0fus, acks=all %.0fus", p50["kafka-acks-0"], p50["kafka-acks-all"])
	if !(p50["kafka-acks-all"] > p50["kafka-acks-0"]) {
		t.Errorf("publish p50 with acks=all (%.0fus) is not above acks=0 (%.0fus)", p50["kafka-acks-all"], p50["kafka-acks-0"])
	}
}
