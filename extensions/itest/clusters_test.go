package itest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// The three-node clusters (scripts/brokers/cluster.sh) are shared by the tests that need
// one: a test calls startCluster, which starts the cluster, or the nodes a fault left down,
// and the cluster stays up for the cluster's next test (they sit side by side, in
// cluster_<broker>_test.go); the last of clusterUsers to end stops it, so no idle cluster
// sits beside other tests, and TestMain stops what a partial run (-run) left. Starting one
// takes 33 s (Kafka) to 37 s (RabbitMQ) on 2 cores; each test's assertions are about its own
// destination, not a fresh cluster.
var clusterUsers = map[string]int{"nats": 2, "kafka": 2, "rabbitmq": 2}

// clusterTurn: one test at a time on a cluster (waitClusterTurn). The cluster tests are in
// the waiting tier (their time goes to nodes dying, electing and coming back), beside the
// kill-and-restart tests, but a test's faults must not land in another's run on its cluster.
var clusterTurn = map[string]*sync.Mutex{"nats": {}, "kafka": {}, "rabbitmq": {}}

var clusters struct {
	mu      sync.Mutex
	started []string // in the order first started
	root    string
}

// startCluster has broker's cluster running with all its nodes, started by this process if
// it was not, and says how long that took.
func startCluster(t *testing.T, broker string) string {
	t.Helper()
	began := time.Now()
	t.Cleanup(func() { releaseCluster(broker) })
	out := mustCluster(t, "start", broker)
	clusters.mu.Lock()
	defer clusters.mu.Unlock()
	clusters.root = repoRoot(t)
	for _, b := range clusters.started {
		if b == broker {
			return fmt.Sprintf("cluster.sh start %s (%v, shared):\n%s", broker, time.Since(began).Round(100*time.Millisecond), out)
		}
	}
	clusters.started = append(clusters.started, broker)
	return fmt.Sprintf("cluster.sh start %s (%v):\n%s", broker, time.Since(began).Round(100*time.Millisecond), out)
}

// releaseCluster is a user's end: the last one stops the cluster.
func releaseCluster(broker string) {
	clusters.mu.Lock()
	defer clusters.mu.Unlock()
	if clusterUsers[broker]--; clusterUsers[broker] > 0 {
		return
	}
	for i, b := range clusters.started {
		if b == broker {
			stopCluster(b)
			clusters.started = append(clusters.started[:i], clusters.started[i+1:]...)
			return
		}
	}
}

// stopClusters stops every cluster startCluster started and no user released.
func stopClusters() {
	clusters.mu.Lock()
	defer clusters.mu.Unlock()
	for _, b := range clusters.started {
		stopCluster(b)
	}
	clusters.started = nil
}

// stopCluster stops broker's cluster and removes its data (clusters.mu held).
func stopCluster(b string) {
	script := filepath.Join(clusters.root, "scripts", "brokers", "cluster.sh")
	if b == "rabbitmq" {
		// One after the other the nodes' graceful stops take 3 x 8.5 s (each waits 5 s for
		// the management agent): all at once first, then the cluster's stop finds them down
		// and removes their data.
		var wg sync.WaitGroup
		for n := 1; n <= rabbitClusterSize; n++ {
			wg.Add(1)
			go func() { defer wg.Done(); _ = exec.Command(script, "stop", b, strconv.Itoa(n)).Run() }()
		}
		wg.Wait()
	}
	if out, err := exec.Command(script, "stop", b).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cluster.sh stop %s: %v\n%s\n", b, err, out)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopClusters()
	os.Exit(code)
}
