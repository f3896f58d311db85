package itest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Brokers the tests start for themselves (a private instance on its own state dir and
// ports) or find where scripts/test.sh started them, and what those still hold after a run.

// privateBroker starts its own instance of a broker through the project's scripts, in its
// own state dir and ports, so killing it cannot disturb the shared brokers other tests use.
type privateBroker struct {
	t    *testing.T
	name string
	env  []string
}

func startPrivate(t *testing.T, name string, portEnv ...string) *privateBroker {
	t.Helper()
	b := &privateBroker{t: t, name: name, env: append(append(os.Environ(), "MQBENCH_STATE="+t.TempDir()), portEnv...)}
	b.script("start.sh")
	t.Cleanup(func() { b.script("stop.sh") })
	return b
}

// sharedBroker is the handle of the instance scripts/test.sh started (its state dir and
// ports), for a test that pauses it and lets it go.
func sharedBroker(t *testing.T, name string) *privateBroker {
	return &privateBroker{t: t, name: name, env: os.Environ()}
}

func (b *privateBroker) script(name string) {
	b.t.Helper()
	b.run(b.t, name)
}

// run is script for a subtest of the test that started the broker (t fails, not b.t: a
// test fails only from its own goroutine).
func (b *privateBroker) run(t *testing.T, name string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "brokers", name), b.name)
	cmd.Env = b.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, b.name, err, out.String())
	}
}

// postgresStateDir is a private state dir for a broker script whose server runs as the
// postgres user (PostgreSQL refuses root), which cannot enter go test's 0700 temp dirs.
func postgresStateDir(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	for _, d := range []string{filepath.Dir(filepath.Dir(state)), filepath.Dir(state)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return state
}

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
