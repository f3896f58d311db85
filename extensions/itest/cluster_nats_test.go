package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The three-node NATS cluster of scripts/brokers/cluster.sh (fixed ports: node N has client
// 4300+N, routes 6300+N, monitor 8300+N, server name nN). It runs in the shared state dir, so
// a cluster left by a crashed run is ours: start reuses it, the cleanup stops it.
const (
	failoverStream  = "MQBENCH_FAILOVER"
	failoverSubject = "mqbench.failover"
	clusterSize     = 3
)

// cluster runs scripts/brokers/cluster.sh ARGS... and returns its output.
func cluster(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "brokers", "cluster.sh"), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimSpace(out.String()), err
}

func mustCluster(t *testing.T, args ...string) string {
	t.Helper()
	out, err := cluster(t, args...)
	if err != nil {
		t.Fatalf("cluster.sh %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func natsMonitor(node int, path string, v any) error {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(fmt.Sprintf("http://127.0.0.1:%d%s", 8300+node, path))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(v)
}

// A leader's node number from its server name: nN is node N.
func nodeOf(t *testing.T, server string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimPrefix(server, "n"))
	if !strings.HasPrefix(server, "n") || err != nil || n < 1 || n > clusterSize {
		t.Fatalf("server name %q is not a cluster node (n1..n%d)", server, clusterSize)
	}
	return n
}

func waitFor(t *testing.T, what string, timeout time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, timeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A scenario whose faults kill the leader (cluster_faults_test.go).
func TestScenarioFaultsNATSCluster(t *testing.T) {
	testScenarioFaults(t, "nats", natsNode, []faultCase{
		{"cluster-nats-safe", true, time.Second},
		{"cluster-nats-unsafe", false, time.Second},
	})
}

// An R3 file stream, its leader's node SIGKILLed while a publisher keeps publishing (each
// message retried under its own Nats-Msg-Id until acknowledged), the node restarted: every
// acknowledged message is in the stream exactly once and the three replicas are current.
func TestNATSClusterFailover(t *testing.T) {
	k6Binary(t) // runs with the other itests (make test), skips like them otherwise
	waitClusterTurn(t, "nats", 15*time.Second)
	began := time.Now()
	t.Log(startCluster(t, "nats"))
	checkFormed(t)
	checkLoopbackOnly(t)

	nc, err := nats.Connect("nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303",
		nats.Name("mqbench-itest-failover"), nats.MaxReconnects(-1), nats.ReconnectWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_ = js.DeleteStream(ctx, failoverStream) // a crashed run's
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: failoverStream, Subjects: []string{failoverSubject}, Storage: jetstream.FileStorage,
		Replicas: clusterSize, Duplicates: 5 * time.Minute, // dedup window longer than the test
	})
	if err != nil {
		t.Fatal(err)
	}

	p := startPublisher(js)
	t.Cleanup(func() { close(p.abort); p.stop() })
	waitFor(t, "1000 messages acknowledged", 30*time.Second, func() bool { return p.count() >= 1000 })

	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	oldLeader := info.Cluster.Leader
	node := nodeOf(t, oldLeader)
	if got := mustCluster(t, "leader", "nats", failoverStream); got != strconv.Itoa(node) {
		t.Errorf("cluster.sh leader says node %q, stream info says %s", got, oldLeader)
	}
	before := p.count()
	killStart := time.Now()
	out := mustCluster(t, "kill", "nats", strconv.Itoa(node))
	killed := time.Now()
	t.Logf("%s (leader %s, after %d acks; cluster.sh kill took %v)", out, oldLeader, before, killed.Sub(killStart).Round(time.Millisecond))

	var first time.Time
	waitFor(t, "an acknowledgement after the kill", time.Minute, func() bool { first = p.firstAfter(killed); return !first.IsZero() })
	var newLeader string
	waitFor(t, "a new stream leader", 30*time.Second, func() bool {
		c, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		if i, err := stream.Info(c); err == nil && i.Cluster != nil {
			newLeader = i.Cluster.Leader
		}
		return newLeader != "" && newLeader != oldLeader
	})
	after := p.count()
	waitFor(t, "500 more acknowledgements under the new leader", 30*time.Second, func() bool { return p.count() >= after+500 })
	acked, retries, dups, err := p.stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("failover: first acknowledgement %v after the kill; new leader %s; %d acknowledged in all, %d publish attempts retried, %d retries answered as duplicates",
		first.Sub(killed).Round(time.Millisecond), newLeader, acked, retries, dups)

	restart := time.Now()
	out = mustCluster(t, "start", "nats", strconv.Itoa(node))
	t.Logf("cluster.sh start nats %d (%v):\n%s", node, time.Since(restart).Round(100*time.Millisecond), out)

	var replicas []string
	waitFor(t, "3 current replicas", 30*time.Second, func() bool {
		c, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		i, err := stream.Info(c)
		if err != nil || i.Cluster == nil || i.Cluster.Leader == "" {
			return false
		}
		info = i
		replicas = []string{i.Cluster.Leader + " (leader)"}
		for _, r := range i.Cluster.Replicas {
			if !r.Current || r.Offline {
				return false
			}
			replicas = append(replicas, r.Name)
		}
		return len(replicas) == clusterSize
	})
	t.Logf("replicas current: %s", strings.Join(replicas, ", "))
	if info.State.Msgs != uint64(acked) {
		t.Errorf("stream holds %d messages, %d were acknowledged", info.State.Msgs, acked)
	}
	checkExactlyOnce(t, ctx, stream, acked)
	out = mustCluster(t, "status", "nats")
	t.Logf("cluster.sh status nats:\n%s", out)
	if err := js.DeleteStream(ctx, failoverStream); err != nil {
		t.Errorf("delete stream: %v", err)
	}
	t.Logf("test took %v", time.Since(began).Round(100*time.Millisecond))
}

// checkFormed: each node is nN, in cluster mqbench, routed to both others, and sees a
// JetStream meta group of 3 with a leader (cluster.sh checked this already; this is the
// test's own look through the monitor endpoints).
func checkFormed(t *testing.T) {
	t.Helper()
	for n := 1; n <= clusterSize; n++ {
		var varz struct {
			Name    string `json:"server_name"`
			Cluster struct {
				Name string `json:"name"`
			} `json:"cluster"`
		}
		var routez struct {
			Routes []struct {
				RemoteName string `json:"remote_name"`
			} `json:"routes"`
		}
		var jsz struct {
			Meta struct {
				Leader string `json:"leader"`
				Size   int    `json:"cluster_size"`
			} `json:"meta_cluster"`
		}
		for path, v := range map[string]any{"/varz": &varz, "/routez": &routez, "/jsz": &jsz} {
			if err := natsMonitor(n, path, v); err != nil {
				t.Fatalf("node %d %s: %v", n, path, err)
			}
		}
		var peers []string
		for _, r := range routez.Routes {
			if !slices.Contains(peers, r.RemoteName) {
				peers = append(peers, r.RemoteName)
			}
		}
		slices.Sort(peers)
		var want []string
		for i := 1; i <= clusterSize; i++ {
			if i != n {
				want = append(want, fmt.Sprintf("n%d", i))
			}
		}
		if varz.Name != fmt.Sprintf("n%d", n) || varz.Cluster.Name != "mqbench" || !slices.Equal(peers, want) ||
			jsz.Meta.Size != clusterSize || jsz.Meta.Leader == "" {
			t.Fatalf("node %d: server %q cluster %q routes to %v (want %v), meta group of %d led by %q",
				n, varz.Name, varz.Cluster.Name, peers, want, jsz.Meta.Size, jsz.Meta.Leader)
		}
	}
}

var ssLine = regexp.MustCompile(`^\S+\s+\S+\s+\S+\s+(\S+):(\d+)\s.*users:\((.*)\)`)

// checkLoopbackOnly: the NATS nodes' sockets are their three ports on 127.0.0.1.
func checkLoopbackOnly(t *testing.T) {
	t.Helper()
	checkNodeSockets(t, "nats", func(n int) []int { return []int{4300 + n, 6300 + n, 8300 + n} })
}

// checkNodeSockets: every socket node n of broker's cluster listens on (`ss -ltnp`, by the pid
// in its pid file) is on 127.0.0.1 (a JVM shows it as the IPv4-mapped ::ffff:127.0.0.1), and
// they are exactly ports(n).
func checkNodeSockets(t *testing.T, broker string, ports func(n int) []int) {
	t.Helper()
	state := os.Getenv("MQBENCH_STATE")
	if state == "" {
		state = filepath.Join(repoRoot(t), ".cache", "brokers")
	}
	out, err := exec.Command("ss", "-Hltnp").Output()
	if err != nil {
		t.Fatalf("ss -Hltnp: %v", err)
	}
	for n := 1; n <= clusterSize; n++ {
		b, err := os.ReadFile(filepath.Join(state, "cluster", broker, fmt.Sprintf("n%d", n), "run", broker+".pid"))
		if err != nil {
			t.Fatal(err)
		}
		owner := "pid=" + strings.TrimSpace(string(b)) + ","
		var got []int
		for _, line := range strings.Split(string(out), "\n") {
			m := ssLine.FindStringSubmatch(line)
			if m == nil || !strings.Contains(m[3], owner) {
				continue
			}
			if a := strings.Trim(m[1], "[]"); a != "127.0.0.1" && a != "::ffff:127.0.0.1" {
				t.Errorf("%s node %d listens on %s:%s, not on 127.0.0.1", broker, n, m[1], m[2])
			}
			p, _ := strconv.Atoi(m[2])
			got = append(got, p)
		}
		slices.Sort(got)
		if want := ports(n); !slices.Equal(got, want) {
			t.Errorf("%s node %d listens on ports %v, want %v", broker, n, got, want)
		}
	}
}

// checkExactlyOnce reads the stream from the start with an ordered consumer: messages 0..n-1,
// each once.
func checkExactlyOnce(t *testing.T, ctx context.Context, stream jetstream.Stream, n int) {
	t.Helper()
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, n)
	got, extra := 0, 0
	for deadline := time.Now().Add(30 * time.Second); got < n && time.Now().Before(deadline); {
		batch, err := cons.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			got++
			id, err := strconv.Atoi(string(m.Data()))
			if err != nil || id < 0 || id >= n || m.Headers().Get(jetstream.MsgIDHeader) != string(m.Data()) {
				extra++
				continue
			}
			seen[id]++
		}
	}
	var missing, twice []int
	for id, c := range seen {
		if c == 0 {
			missing = append(missing, id)
		} else if c > 1 {
			twice = append(twice, id)
		}
	}
	t.Logf("read back %d messages with a consumer", got)
	if len(missing) > 0 || len(twice) > 0 || extra > 0 || got != n {
		t.Errorf("read %d of %d acknowledged: missing %v, more than once %v, %d unexpected", got, n, head(missing), head(twice), extra)
	}
}

func head(ids []int) []int { return ids[:min(len(ids), 20)] }

// publisher publishes 0, 1, 2, ... in order, one at a time, each retried under its number as
// Nats-Msg-Id until acknowledged: a retry of a message the old leader stored but could not
// acknowledge is dropped by the stream's deduplication, not stored twice.
type publisher struct {
	mu      sync.Mutex
	acks    []time.Time // acknowledgement time of message i
	retries int
	dups    int
	quit    chan struct{} // stop after the current message is acknowledged
	abort   chan struct{} // stop now (a failed test's cleanup)
	done    chan error
	once    sync.Once
}

func startPublisher(js jetstream.JetStream) *publisher {
	p := &publisher{quit: make(chan struct{}), abort: make(chan struct{}), done: make(chan error, 1)}
	go func() {
		for id := 0; ; id++ {
			select {
			case <-p.quit:
				p.done <- nil
				return
			default:
			}
			data := []byte(strconv.Itoa(id))
			giveUp := time.Now().Add(time.Minute)
			for {
				// A short wait per try: the failover time is measured to within it.
				ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
				ack, err := js.Publish(ctx, failoverSubject, data, jetstream.WithMsgID(string(data)))
				cancel()
				if err == nil {
					p.mu.Lock()
					p.acks = append(p.acks, time.Now())
					if ack.Duplicate {
						p.dups++
					}
					p.mu.Unlock()
					break
				}
				if time.Now().After(giveUp) {
					p.done <- fmt.Errorf("message %d not acknowledged within a minute: %w", id, err)
					return
				}
				p.mu.Lock()
				p.retries++
				p.mu.Unlock()
				select {
				case <-p.abort:
					p.done <- fmt.Errorf("aborted while message %d was unacknowledged", id)
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}
	}()
	return p
}

func (p *publisher) count() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.acks) }

// firstAfter: when the first acknowledgement after t arrived (zero: none yet).
func (p *publisher) firstAfter(t time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if i, _ := slices.BinarySearchFunc(p.acks, t, func(a, t time.Time) int { return a.Compare(t) }); i < len(p.acks) {
		return p.acks[i]
	}
	return time.Time{}
}

func (p *publisher) stop() (acked, retries, dups int, err error) {
	p.once.Do(func() { close(p.quit); err = <-p.done })
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.acks), p.retries, p.dups, err
}
