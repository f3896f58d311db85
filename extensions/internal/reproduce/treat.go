package reproduce

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Latency is Treat's "Benchmarking Message Queue Latency": end-to-end latency of the five
// standard cells (256 B and 1 KB at 3,000 msg/s, 5 KB at 2,000, 1 KB at 20,000 over 25
// connections, 1 MB at 100), open model, for NATS core, Redis pub/sub and RabbitMQ, the latter
// both as the study ran it (transient queue, no confirms, auto-ack) and durable with confirms.
// The ratios: RabbitMQ durable ÷ transient and RabbitMQ ÷ NATS at p99, 1 KB at 3,000 msg/s
// (cell c2).
func Latency(e *Env) error {
	e.Header("Benchmarking Message Queue Latency (Treat): e2e latency, five standard cells")
	e.Table(latencyHead...)
	p99 := map[string]*float64{}
	for _, r := range []struct{ broker, scenario string }{{"nats", "nats-latency-matrix"}, {"redis", "redis-latency-matrix"},
		{"rabbitmq", "rabbitmq-latency-matrix-transient"}, {"rabbitmq", "rabbitmq-latency-matrix"}} {
		up, err := e.Up(r.broker)
		if err != nil {
			return err
		}
		if !up {
			continue
		}
		s, _, err := e.Measure(r.scenario)
		if err != nil {
			return err
		}
		e.Printf("%s", LatencyRows(s))
		p99[r.scenario] = Figure(s, "c2", e2eP99)
	}
	e.Printf("\n")
	e.Table("ratio, e2e p99 at 1 KB / 3,000 msg/s", "mqbench", "study")
	e.RatioRow("RabbitMQ durable + confirms ÷ transient", p99["rabbitmq-latency-matrix"], p99["rabbitmq-latency-matrix-transient"], "(transient only)")
	e.RatioRow("RabbitMQ transient ÷ NATS core", p99["rabbitmq-latency-matrix-transient"], p99["nats-latency-matrix"], "see docs/reproductions.md")
	e.RatioRow("Redis ÷ NATS core", p99["redis-latency-matrix"], p99["nats-latency-matrix"], "see docs/reproductions.md")
	return nil
}

// Dissecting is Treat's "Dissecting Message Queues": 1,000,000 messages of 1 KB sent as fast
// as the client takes them, one sender and one receiver on the broker's machine; the figures
// are the sender's and the receiver's rates. NATS core, Kafka (acks 1) and RabbitMQ
// (transient, no confirms). The ratio: receiver ÷ sender per broker (below 1: the receiver
// falls behind).
func Dissecting(e *Env) error {
	e.Header("Dissecting Message Queues (Treat): 1,000,000 x 1 KB, sender vs receiver")
	e.Table(rateHead...)
	type ratio struct {
		label string
		a, b  *float64
	}
	var ratios []ratio
	for _, b := range []string{"nats", "kafka", "rabbitmq"} {
		up, err := e.Up(b)
		if err != nil {
			return err
		}
		if !up {
			continue
		}
		s, _, err := e.Measure("dissecting-" + b + "-throughput")
		if err != nil {
			return err
		}
		e.Printf("%s", RateRows(s))
		ratios = append(ratios, ratio{b + " receiver ÷ sender", Figure(s, "c1", receiverRate), Figure(s, "c1", senderRate)})
	}
	e.Printf("\n")
	e.Table(ratioHead...)
	for _, r := range ratios {
		e.RatioRow(r.label, r.a, r.b, "see docs/reproductions.md")
	}
	return nil
}

// CommitLogs is Treat's "Benchmarking Commit Logs" (Kafka vs NATS Streaming; JetStream stands
// in for NATS Streaming, which is end-of-life): latency at a fixed 50 msg/s per size, and
// throughput: 100,000 messages per size sent as fast as acknowledged (1 MB: 3,000; in memory
// 1,000). NATS in its three setups: in memory, file, file with an fsync per message (a private
// server, the shared one untouched: privateNATS); Kafka on the page cache and with
// flush.messages 1. The ratios: Kafka ÷ NATS (file) at p99, fsync ÷ memory (p99 and
// throughput), Kafka flush ÷ page cache, all at 1 KB.
func CommitLogs(e *Env) error {
	kafka, err := e.Up("kafka")
	if err != nil {
		return err
	}
	nats, err := e.Up("nats")
	if err != nil {
		return err
	}
	if nats {
		if err := e.privateNATS(); err != nil {
			return err
		}
		defer e.privateNATSDown()
	}
	const fsyncURL = "nats://127.0.0.1:4222=nats://127.0.0.1:" + privateNATSPort
	// measure runs the scenarios of the brokers up (the fsync ones on the private server) and
	// keeps each one's figure of cell c2 (1 KB).
	measure := func(rows func(*results.Summary) string, of func(*results.Cell) float64, kafkaRuns, natsRuns []string) (map[string]*float64, error) {
		var runs []string
		if kafka {
			runs = append(runs, kafkaRuns...)
		}
		if nats {
			runs = append(runs, natsRuns...)
		}
		figs := map[string]*float64{}
		for _, sc := range runs {
			var subs []string
			if strings.HasSuffix(sc, "-fsync") {
				subs = []string{fsyncURL}
			}
			s, _, err := e.Measure(sc, subs...)
			if err != nil {
				return nil, err
			}
			e.Printf("%s", rows(s))
			figs[sc] = Figure(s, "c2", of)
		}
		return figs, nil
	}
	e.Header("Benchmarking Commit Logs (Treat): latency at 50 msg/s")
	e.Table(latencyHead...)
	p99, err := measure(LatencyRows, e2eP99, []string{"commit-log-kafka", "commit-log-kafka-flush"},
		[]string{"commit-log-jetstream", "commit-log-jetstream-memory", "commit-log-jetstream-fsync"})
	if err != nil {
		return err
	}
	e.Header("Benchmarking Commit Logs (Treat): throughput, as fast as acknowledged")
	e.Table(rateHead...)
	tp, err := measure(RateRows, e2eRate, []string{"commit-log-throughput-kafka", "commit-log-throughput-kafka-flush"},
		[]string{"commit-log-throughput-jetstream", "commit-log-throughput-jetstream-memory", "commit-log-throughput-jetstream-fsync"})
	if err != nil {
		return err
	}
	e.Printf("\n")
	e.Table("ratio, 1 KB", "mqbench", "study")
	e.RatioRow("Kafka ÷ NATS file, e2e p99 at 50 msg/s", p99["commit-log-kafka"], p99["commit-log-jetstream"], "see docs/reproductions.md")
	e.RatioRow("NATS fsync ÷ memory, e2e p99 at 50 msg/s", p99["commit-log-jetstream-fsync"], p99["commit-log-jetstream-memory"], "see docs/reproductions.md")
	e.RatioRow("Kafka flush ÷ page cache, e2e p99 at 50 msg/s", p99["commit-log-kafka-flush"], p99["commit-log-kafka"], "(not measured)")
	e.RatioRow("NATS fsync ÷ memory, throughput", tp["commit-log-throughput-jetstream-fsync"], tp["commit-log-throughput-jetstream-memory"], "see docs/reproductions.md")
	e.RatioRow("Kafka ÷ NATS file, throughput", tp["commit-log-throughput-kafka"], tp["commit-log-throughput-jetstream"], "see docs/reproductions.md")
	return nil
}
