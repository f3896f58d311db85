package itest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Runners on separate hosts: three network namespaces the test creates, each with its own
// loopback, hostname and a veth pair to the machine, run 2 producer runners and 1 consumer
// runner against one shared Kafka topic and one shared RabbitMQ quorum queue.
//
// The brokers listen on 127.0.0.1 only, and Kafka tells clients to connect to its advertised
// 127.0.0.1:9092. So every port a runner needs (Kafka, AMQP, RabbitMQ's management API, the
// reference clock) is relayed twice: on the machine, a socat listens only on the host end of
// that namespace's veth (10.231.<i>.1, a private /30) and forwards to 127.0.0.1; inside the
// namespace, a socat listens on the namespace's own 127.0.0.1 and forwards to the host end.
// A runner inside finds every broker at 127.0.0.1:<its port>, as the advertised address
// says, and nothing listens on 0.0.0.0 or an outside interface. Namespaces (and with them
// the veth pairs) and relays are removed in the test's cleanup, failed or not.
func TestNetnsSharedDestination(t *testing.T) {
	bin := k6Binary(t)
	if os.Geteuid() != 0 {
		t.Skip("creating network namespaces needs root")
	}
	for _, tool := range []string{"ip", "socat", "curl", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found: %v", tool, err)
		}
	}
	clockPort := freePort(t)
	startProc(t, exec.Command(bin, "x", "mqbench", "clock", "--listen", fmt.Sprintf("127.0.0.1:%d", clockPort)))
	ports := []int{9092, 5672, 15672, clockPort}
	tag := fmt.Sprintf("%d", os.Getpid()%100000)
	var hosts []string
	for i := 1; i <= 3; i++ {
		hosts = append(hosts, testHost(t, tag, i, ports))
	}
	dest := "mqbench.itest.netns." + tag
	// Dropped iterations are counted, not judged: on a shared 2-core machine a producer's first
	// sends (Kafka's metadata fetch) can hold its VUs for a tick or two, and this test is about
	// where messages went (sent == received, the ledger) and on which clock, not the pacing.
	kafka := fmt.Sprintf(`name: netns-kafka
broker: { type: kafka, url: "127.0.0.1:9092", kafka: { acks: all, topic: { partitions: 3 } } }
workload: { destination: %s, warmup: 1s, duration: 4s, drain: 3s }
matrix:
  - { size: 512B, rate: 600 }
thresholds:
  mq_e2e_latency: ["p(99) < 2s"]
validity: { allow_dropped_iterations: true }
distributed: { destination: shared, producers: 2, consumers: 1 }
`, dest)
	rabbit := fmt.Sprintf(`name: netns-rabbitmq
broker: { type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5672/", rabbitmq: { queue_type: quorum, confirms: true, persistent: true, prefetch: 200 } }
workload: { destination: %s, warmup: 1s, duration: 4s, drain: 3s }
matrix:
  - { size: 512B, rate: 600 }
thresholds:
  mq_e2e_latency: ["p(99) < 2s"]
validity: { allow_dropped_iterations: true }
distributed: { destination: shared, producers: 2, consumers: 1 }
`, dest)
	dir := t.TempDir()
	t.Cleanup(func() { dropDestinations(t, dest) })
	for _, sc := range []struct{ name, yaml string }{{"netns-kafka", kafka}, {"netns-rabbitmq", rabbit}} {
		t.Run(sc.name, func(t *testing.T) {
			file := filepath.Join(dir, sc.name+".yaml")
			if err := os.WriteFile(file, []byte(sc.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			s, code, out := runInHosts(t, bin, hosts, file, clockPort)
			if code != 0 {
				t.Fatalf("merge exit %d\n%s", code, out)
			}
			checkSharedRun(t, s, out)
			c := s.Cells[0]
			if c.E2E.Min <= 0 || c.E2E.P.P50 <= 0 || c.E2E.Max > 2e6 {
				t.Errorf("corrected e2e latency implausible (µs): %+v", c.E2E)
			}
			for _, r := range s.Clock.Runners {
				// One kernel clock under every namespace: the true offset is 0.
				if r.Reference == "" || r.UncertaintyMs <= 0 || r.UncertaintyMs > 5 || r.OffsetMs < -r.UncertaintyMs || r.OffsetMs > r.UncertaintyMs {
					t.Errorf("runner %d: offset %.3f ms ± %.3f (reference %q)", r.Runner, r.OffsetMs, r.UncertaintyMs, r.Reference)
				}
			}
			if !s.Clock.Cells[0].Measured {
				t.Error("clock bound not measured")
			}
			t.Logf("%s: sent %d received %d ledger %+v e2e p50 %.0fµs p90 %.0fµs max %.0fµs bound %.3f ms; clock %+v",
				sc.name, c.Sent, c.Received, c.Ledger, c.E2E.P.P50, c.E2E.P.P90, c.E2E.Max, s.Clock.Cells[0].BoundMs, s.Clock.Runners)
		})
	}
}

// testHost creates namespace mqb<tag>h<i> with loopback up, a veth pair to the machine
// (10.231.<i>.1 here, .2 inside) and the two relays of every port; all removed at cleanup.
func testHost(t *testing.T, tag string, i int, ports []int) string {
	t.Helper()
	ns, hv, nv := fmt.Sprintf("mqb%sh%d", tag, i), fmt.Sprintf("mqb%sa%d", tag, i), fmt.Sprintf("mqb%sb%d", tag, i)
	hostIP, nsIP := fmt.Sprintf("10.231.%d.1", i), fmt.Sprintf("10.231.%d.2", i)
	mustRun(t, "ip", "netns", "add", ns)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() }) // takes the veth pair with it
	mustRun(t, "ip", "link", "add", hv, "type", "veth", "peer", "name", nv)
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", hv).Run() }) // if the namespace never got its end
	mustRun(t, "ip", "link", "set", nv, "netns", ns)
	mustRun(t, "ip", "addr", "add", hostIP+"/30", "dev", hv)
	mustRun(t, "ip", "link", "set", hv, "up")
	mustRun(t, "ip", "netns", "exec", ns, "ip", "addr", "add", nsIP+"/30", "dev", nv)
	mustRun(t, "ip", "netns", "exec", ns, "ip", "link", "set", nv, "up")
	mustRun(t, "ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
	for _, p := range ports {
		startProc(t, exec.Command("socat", fmt.Sprintf("TCP-LISTEN:%d,bind=%s,reuseaddr,fork", p, hostIP), fmt.Sprintf("TCP:127.0.0.1:%d", p)))
		startProc(t, exec.Command("ip", "netns", "exec", ns, "socat", fmt.Sprintf("TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork", p), fmt.Sprintf("TCP:%s:%d", hostIP, p)))
	}
	for _, p := range ports { // every relay listening before a runner starts
		waitFor(t, fmt.Sprintf("relay %s:%d", ns, p), 30*time.Second, func() bool {
			return exec.Command("ip", "netns", "exec", ns, "bash", "-c", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", p)).Run() == nil
		})
	}
	return ns
}

// runInHosts runs runner i of 3 in hosts[i-1] with the k6-operator's arguments (paused, then
// resumed one after another over REST inside its namespace), then merges on the machine.
func runInHosts(t *testing.T, bin string, hosts []string, file string, clockPort int) (sharedSummary, int, string) {
	t.Helper()
	results := t.TempDir()
	runID := "netns-" + strings.TrimSuffix(filepath.Base(file), ".yaml")
	seq := "0,1/3,2/3,1"
	segs := []string{"0:1/3", "1/3:2/3", "2/3:1"}
	var procs []*exec.Cmd
	var logs []string
	for i, ns := range hosts {
		log := filepath.Join(results, fmt.Sprintf("runner-%d.log", i+1))
		f, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		cmd := exec.Command("ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", `hostname "$0" && exec "$@"`,
			fmt.Sprintf("runner-%d", i+1), bin, "x", "mqbench", "run", file, "--quiet",
			"--execution-segment="+segs[i], "--execution-segment-sequence="+seq, "--address=127.0.0.1:6565", "--paused",
			"--tag", fmt.Sprintf("instance_id=%d", i+1), "--tag", "testrun_name=netns")
		cmd.Env = append(os.Environ(), "MQ_RUNNERS=3", "MQ_RUN_ID="+runID, "MQ_RESULTS="+results, "MQ_START_SLACK=3s",
			fmt.Sprintf("MQ_CLOCK_REF=127.0.0.1:%d", clockPort), "K6_NO_USAGE_REPORT=true", "K6_AUTO_EXTENSION_RESOLUTION=false")
		cmd.Stdout, cmd.Stderr = f, f
		startProc(t, cmd)
		procs, logs = append(procs, cmd), append(logs, log)
	}
	for _, ns := range hosts {
		waitFor(t, "runner in "+ns, 30*time.Second, func() bool {
			return exec.Command("ip", "netns", "exec", ns, "curl", "-sf", "http://127.0.0.1:6565/v1/status").Run() == nil
		})
	}
	for _, ns := range hosts {
		mustRun(t, "ip", "netns", "exec", ns, "curl", "-sf", "-X", "PATCH", "-H", "Content-Type: application/json",
			"-d", `{"data":{"type":"status","id":"default","attributes":{"paused":false}}}`, "http://127.0.0.1:6565/v1/status")
	}
	var out strings.Builder
	for i, p := range procs {
		err := p.Wait()
		b, _ := os.ReadFile(logs[i])
		fmt.Fprintf(&out, "== runner %d (%v)\n%s\n", i+1, err, tail(string(b), 15))
	}
	name := strings.TrimSuffix(filepath.Base(file), ".yaml")
	m := exec.Command(bin, "x", "mqbench", "merge", filepath.Join(results, name, runID))
	mo, err := m.CombinedOutput()
	out.Write(mo)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s := readSharedSummary(t, filepath.Join(results, name, runID), code == 0, out.String())
	return s, code, out.String()
}

func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// dropDestinations removes what the shared runs left (runners keep a shared destination).
func dropDestinations(t *testing.T, dest string) {
	root := repoRoot(t)
	_ = exec.Command(filepath.Join(root, "scripts/brokers/rabbitmqctl.sh"), "delete_queue", dest).Run()
	_ = exec.Command(filepath.Join(root, "scripts/brokers/kafka-tool.sh"), "org.apache.kafka.tools.TopicCommand",
		"--bootstrap-server", "127.0.0.1:9092", "--delete", "--topic", dest).Run()
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// startProc starts cmd and kills it (by its pid) at cleanup if it is still running.
func startProc(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", cmd.Path, err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
	})
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
