package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/ladder"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Replication: what replication costs. Each broker's "safe" configuration on one node (R1, the
// project's single-server broker) and on the project's three-node cluster (R3,
// scripts/brokers/cluster.sh), 1 KB messages, one producer and one consumer, same session:
//  1. p95 publish latency and p95 end-to-end latency at 1,000 msg/s
//  2. the highest rate held over BENCH_DURATION (60s: a rate is held only over a sustained
//     window) from BENCH_RATES: the ladder's on-time rule with a VU pool for LateMax of
//     iterations, as the nats section. Three broker nodes share 2 cores with k6 here: R3
//     delays ticks by tens of ms (zero lateness was never held at 1,000 msg/s).
//
// Safe means: NATS JetStream file storage (replicas 1 / 3); RabbitMQ quorum queue, persistent
// messages, confirms (one member / three); Kafka acks=all, idempotent (RF 1 with
// min.insync.replicas 1 / RF 3 with 2). One broker runs at a time: the single node is stopped
// (if this section started it) before its cluster starts, and the cluster is stopped after.
// BENCH_REPLICATION picks brokers (default: every broker with a cluster recipe).
func Replication(e *Env) error {
	duration, err := e.Seconds("BENCH_DURATION", "60s")
	if err != nil {
		return err
	}
	rates, err := e.Ints("BENCH_RATES", []int{1000, 2000, 4000, 8000, 16000})
	if err != nil {
		return err
	}
	// the ladder from 1,000 msg/s (whose run gives the p95s; when 1,000 is not held no higher
	// rate is tried)
	rungs := []int{1000}
	for _, r := range rates {
		if r > 1000 {
			rungs = append(rungs, r)
		}
	}
	var brokers []string
	for _, b := range strings.Fields(e.Setting("BENCH_REPLICATION", "nats rabbitmq kafka")) {
		if _, err := os.Stat(filepath.Join(e.Repo, "scripts", "brokers", "cluster", b+".sh")); err == nil && safeBroker[b] != [2]string{} {
			brokers = append(brokers, b)
		}
	}
	e.Printf("== replication: safe R1 (one node) vs R3 (three-node cluster), 1 KB, %s per rate, %d cores\n", Secs(duration), Cores())
	e.Printf("%-9s %-4s %14s %14s %16s\n", "broker", "repl", "p95 publish", "p95 e2e", "highest held/s")
	type measured struct{ publish, e2e, best float64 }
	measure := func(b string, r int, broker string) (measured, error) {
		name := fmt.Sprintf("repl-%s-r%d", b, r)
		step, err := Step(name, broker, "1KB", duration)
		if err != nil {
			return measured{}, err
		}
		step.LateVUs = true
		mq := &ladder.Mqbench{Step: step, K6: e.K6, Dir: e.Dir, Judge: []string{"on-time"}, Columns: []string{"sent/s", "recv/s", "dropped", "lost", "late-max"}}
		best, err := e.Ladder(rungs, 2000, []ladder.Probe{mq}, "") // no rows: the table is the output
		if err != nil {
			return measured{}, err
		}
		run, err := results.Load(lastRun(filepath.Join(e.Dir, "results", name+"-1000")))
		if err != nil {
			return measured{}, err
		}
		f, err := Figures(&run.Summary, "publish_p95_us", "e2e_p95_us")
		if err != nil {
			return measured{}, err
		}
		return measured{f[0], f[1], float64(best[0].Rate)}, nil
	}
	cluster := func(action, b string) error {
		cmd := exec.Command(filepath.Join(e.Repo, "scripts", "brokers", "cluster.sh"), action, b)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		return cmd.Run()
	}
	for _, b := range brokers {
		if err := e.BrokerUp(b); err != nil {
			return err
		}
		r1, err := measure(b, 1, safeBroker[b][0])
		if err != nil {
			return err
		}
		if err := e.BrokerDown(b); err != nil {
			return err
		}
		if err := cluster("start", b); err != nil {
			return err
		}
		r3, err := measure(b, 3, safeBroker[b][1])
		if cerr := cluster("stop", b); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		e.Printf("%-9s %-4s %14s %14s %16.0f\n", b, "R1", us(r1.publish), us(r1.e2e), r1.best)
		e.Printf("%-9s %-4s %14s %14s %16.0f\n", b, "R3", us(r3.publish), us(r3.e2e), r3.best)
		e.Printf("%-9s %-4s %14s %14s %16s\n", b, "R3/R1", Ratio(r3.publish, r1.publish), Ratio(r3.e2e, r1.e2e), Ratio(r3.best, r1.best))
		// No native tool: per broker, the replicated (R3) cluster against one node (R1).
		if err := e.Headline("replication", b+": highest rate held, R3 ÷ R1 (no native tool)",
			strconv.FormatFloat(r3.best, 'f', 0, 64)+" (R3)", strconv.FormatFloat(r1.best, 'f', 0, 64)+" (R1)", Ratio(r3.best, r1.best)+"x"); err != nil {
			return err
		}
	}
	return nil
}

// safeBroker is each broker's safe configuration on one node ([0]) and on the cluster ([1]).
var safeBroker = map[string][2]string{
	"nats": {`{ type: nats, url: "nats://127.0.0.1:4222", nats: { mode: jetstream, storage: file, replicas: 1 } }`,
		`{ type: nats, url: "nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303", nats: { mode: jetstream, storage: file, replicas: 3 } }`},
	"rabbitmq": {`{ type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5672/", rabbitmq: { queue_type: quorum, persistent: true, confirms: true, prefetch: 200 } }`,
		`{ type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5701/", rabbitmq: { queue_type: quorum, persistent: true, confirms: true, prefetch: 200 } }`},
	"kafka": {`{ type: kafka, url: "kafka://127.0.0.1:9092", kafka: { acks: all, idempotent: true, topic: { partitions: 1, replication_factor: 1, configs: { min.insync.replicas: "1" } } } }`,
		`{ type: kafka, url: "kafka://127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203", kafka: { acks: all, idempotent: true, topic: { partitions: 1, replication_factor: 3, configs: { min.insync.replicas: "2" } } } }`},
}

// lastRun is the newest run folder in dir (run folders are UTC stamps: they sort by time).
func lastRun(dir string) string {
	entries, _ := os.ReadDir(dir)
	last := ""
	for _, en := range entries {
		if en.IsDir() && en.Name() > last {
			last = en.Name()
		}
	}
	return filepath.Join(dir, last)
}

// us formats microseconds as the tables do: "1.23 ms" from a millisecond up, else "123 us".
func us(v float64) string {
	if v >= 1000 {
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + " ms"
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64) + " us"
}
