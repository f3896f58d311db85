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

	"github.com/mqbench/xk6-mqbench/internal/scenario"
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

// leftovers lists what the run of extensions/itest/testdata/SCENARIO.yaml created and left on
// its broker: of the broker's mqbench-itest-* topics, queues or tables (a schema before the
// name is ignored), its destination and the numbered ones beside it (destination-0, -1, …);
// of RocketMQ's run groups' retry topics, the one naming runID; and whatever else the
// broker's lister names (an orphaned trigger function). Other tests' runs may be live beside
// this one (sideBySide): their destinations and groups are theirs to check.
func leftovers(t *testing.T, scenarioFile, runID string) []string {
	t.Helper()
	root := repoRoot(t)
	s, err := scenario.Load(filepath.Join(root, "extensions/itest/testdata", scenarioFile+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	switch s.Broker.Type {
	case "kafka":
		all = listed(t, exec.Command(filepath.Join(root, "scripts/brokers/kafka-tool.sh"), "org.apache.kafka.tools.TopicCommand",
			"--bootstrap-server", "127.0.0.1:9092", "--list"))
	case "rabbitmq":
		all = listed(t, exec.Command(filepath.Join(root, "scripts/brokers/rabbitmqctl.sh"), "list_queues", "-q", "name"))
	case "nsq":
		all = nsqLeftovers(t)
	case "postgres":
		all = postgresLeftovers(t)
	case "mongodb":
		all = mongoLeftovers(t)
	case "sqs":
		all = sqsLeftovers(t)
	case "rocketmq":
		all = rocketmqLeftovers(t)
	}
	dest := s.Workload.Destination
	var left []string
	for _, name := range all {
		bare := name[strings.Index(name, ".mqbench-itest-")+1:] // schema.table → table
		n, numbered := strings.CutPrefix(bare, dest+"-")
		ours := bare == dest || numbered && strings.Trim(n, "0123456789") == ""
		others := strings.HasPrefix(bare, "mqbench-itest-") && !ours ||
			itestRetryTopic.MatchString(name) && (runID == "" || !strings.Contains(name, runID))
		if !others {
			left = append(left, name)
		}
	}
	return left
}

// listed runs a broker's listing tool: its mqbench-itest-* names.
func listed(t *testing.T, cmd *exec.Cmd) []string {
	t.Helper()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("listing destinations: %v\n%s", err, out)
	}
	var names []string
	for _, name := range strings.Fields(string(out)) {
		if strings.HasPrefix(name, "mqbench-itest-") {
			names = append(names, name)
		}
	}
	return names
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
