package reproduce

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/search"
)

// SoftwareMill is SoftwareMill's "Evaluating persistent, replicated message queues": each
// system in a safe replicated configuration (3 nodes, a write acknowledged by a quorum),
// senders and receivers closed loops; the figures are the throughput and the p95 per minute.
// Kafka (acks=all, RF 3, min.insync.replicas 2, 64 partitions, offsets committed every 10 s),
// RabbitMQ (quorum queue, 3 members), NATS JetStream (R3). For each, the closed-loop run on one
// node (the same scenario with replication 1) and, with REPRODUCE_CLUSTER=1, on the three-node
// cluster (scripts/brokers/cluster.sh, started and stopped here), giving replicated ÷ single;
// with REPRODUCE_SEARCH=1 also the capacity search on the cluster (softwaremill-*-r3-search.yaml:
// long, a dozen steps). The cluster's nodes share this machine's cores, the study's did not.
// REPRODUCE_SYSTEMS (kafka rabbitmq nats) picks the systems.
func SoftwareMill(e *Env) error {
	// The closed-loop scenario pointed at the single node, replication 1.
	single := map[string][]string{
		"kafka": {"kafka://127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203=kafka://127.0.0.1:9092",
			"replication_factor: 3=replication_factor: 1", `min.insync.replicas: "2"=min.insync.replicas: "1"`},
		"rabbitmq": {"127.0.0.1:5701=127.0.0.1:5672", "http://127.0.0.1:15701=http://127.0.0.1:15672"},
		"nats":     {"nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303=nats://127.0.0.1:4222", "replicas: 3=replicas: 1"},
	}
	systems := strings.Fields(e.Setting("REPRODUCE_SYSTEMS", "kafka rabbitmq nats"))
	for _, b := range systems {
		if single[b] == nil {
			return fmt.Errorf("REPRODUCE_SYSTEMS: no system %s (kafka, rabbitmq, nats)", b)
		}
	}
	cluster := "" // the cluster running now (one at a time), stopped if the section ends early
	defer func() {
		if cluster != "" {
			_ = e.Script(nil, "brokers/cluster.sh", "stop", cluster)
		}
	}()
	oneRate, three, found := map[string]*float64{}, map[string]*float64{}, map[string]int{}

	e.Header("Evaluating persistent, replicated message queues (SoftwareMill): closed loop")
	e.Table("scenario", "nodes", "cell", "size", "sent", "sender/s", "receiver/s", "e2e/s", "e2e p95 per minute, ms")
	for _, b := range systems {
		sc := "softwaremill-" + b + "-r3-closed"
		up, err := e.Up(b)
		if err != nil {
			return err
		}
		if up {
			s, _, err := e.Measure(sc, single[b]...)
			if err != nil {
				return err
			}
			e.Printf("%s", ClosedRows(s, "1"))
			oneRate[b] = Figure(s, "c1", e2eRate)
		}
		if e.Setting("REPRODUCE_CLUSTER", "0") != "1" {
			continue
		}
		cluster = b
		if err := e.Script(nil, "brokers/cluster.sh", "start", b); err != nil {
			return err
		}
		s, _, err := e.Measure(sc)
		if err != nil {
			return err
		}
		e.Printf("%s", ClosedRows(s, "3"))
		three[b] = Figure(s, "c1", e2eRate)
		if e.Setting("REPRODUCE_SEARCH", "0") == "1" {
			_, path, err := e.Measure("softwaremill-" + b + "-r3-search")
			if err != nil {
				return err
			}
			r, err := search.Load(filepath.Dir(path))
			if err != nil {
				return err
			}
			if len(r.Cells) > 0 {
				found[b] = r.Cells[0].FoundRate // the first cell's
			}
		}
		if err := e.Script(nil, "brokers/cluster.sh", "stop", b); err != nil {
			return err
		}
		cluster = ""
	}
	e.Printf("\n")
	e.Table("ratio, end-to-end rate", "mqbench", "study")
	for _, b := range systems {
		if three[b] != nil && oneRate[b] != nil {
			e.RatioRow(b+" replicated (3 nodes) ÷ single", three[b], oneRate[b], "(no single-node runs)")
		} else {
			e.Printf("| %s replicated ÷ single | not measured (REPRODUCE_CLUSTER=1 runs the cluster) | (no single-node runs) |\n", b)
		}
	}
	for _, b := range systems {
		if f, ok := found[b]; ok {
			e.Printf("| %s capacity search: highest rate held (msg/s) | %s | see docs/reproductions.md |\n", b, strconv.Itoa(f))
		}
	}
	return nil
}
