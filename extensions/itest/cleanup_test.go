package itest

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// leftovers lists the topics / queues named mqbench-itest-* that are still on the broker of
// a Kafka or RabbitMQ scenario after its run: a run removes what it created.
func leftovers(t *testing.T, scenario string) []string {
	t.Helper()
	var cmd *exec.Cmd
	root := repoRoot(t)
	switch {
	case strings.HasPrefix(scenario, "kafka"):
		cmd = exec.Command(filepath.Join(root, "scripts/brokers/kafka-tool.sh"), "org.apache.kafka.tools.TopicCommand",
			"--bootstrap-server", "127.0.0.1:9092", "--list")
	case strings.HasPrefix(scenario, "rabbitmq"):
		cmd = exec.Command(filepath.Join(root, "scripts/brokers/rabbitmqctl.sh"), "list_queues", "-q", "name")
	case strings.HasPrefix(scenario, "nsq"):
		return nsqLeftovers(t)
	case strings.HasPrefix(scenario, "postgres"):
		return postgresLeftovers(t)
	case strings.HasPrefix(scenario, "mongodb"):
		return mongoLeftovers(t)
	case strings.HasPrefix(scenario, "sqs"):
		return sqsLeftovers(t)
	case strings.HasPrefix(scenario, "rocketmq"):
		return rocketmqLeftovers(t)
	default:
		return nil
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("listing destinations: %v\n%s", err, out)
	}
	var left []string
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "mqbench-itest-") {
			left = append(left, name)
		}
	}
	return left
}

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

// nsqLeftovers lists nsqd's topics (GET /stats on scripts/brokers' nsqd) named like the itests'.
func nsqLeftovers(t *testing.T) []string {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:4251/stats?format=json")
	if err != nil {
		t.Fatalf("listing nsq topics: %v", err)
	}
	defer resp.Body.Close()
	var st struct {
		Topics []struct {
			Name string `json:"topic_name"`
		} `json:"topics"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatalf("listing nsq topics: %v", err)
	}
	var left []string
	for _, tp := range st.Topics {
		if strings.HasPrefix(tp.Name, "mqbench-itest-") {
			left = append(left, tp.Name)
		}
	}
	return left
}
