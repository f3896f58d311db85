package bench

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
)

// Max: max throughput, closed loop: mqbench's rate: max cells beside the brokers' own tools,
// each sending as fast as acknowledgements return, same broker, same session (interleaved
// when repeated, first tool alternating).
//  1. RabbitMQ, the seed's classic-queue run: BENCH_MAX_MESSAGES (1,000,000) messages of 12 B
//     into a durable classic queue, persistent, publisher confirms, 1 producer + 1 consumer,
//     prefetch 200, a multiple=true ack per 100 deliveries: mqbench (inflight 200) beside
//     PerfTest with --pmessages/--cmessages N, --confirm 200, --qos 200, through the default
//     exchange as mqbench.
//  2. Kafka: BENCH_MAX_KAFKA_MESSAGES (500,000) records of 1 KB, acks=all (idempotent),
//     linger 0, batches up to kafkaBatchBytes, 1 partition, 1 producer: mqbench (inflight
//     BENCH_MAX_KAFKA_INFLIGHT, 1000: the throughput is the broker's and the 2 cores', not
//     the window's) beside ProducerPerformance --throughput -1.
//
// Both tools count every message from the first send (mqbench warm-up 0 s; PerfTest and
// ProducerPerformance have none, so their JVM's start-up is in their figures; the
// ProducerPerformance steady-state rate after its first 20 % is printed beside).
// BENCH_MAX_REPEATS (3) repeats both parts, the table taking medians. Starts each broker if
// needed and stops it at the end of its part only if this section started it; on a broker it
// did not start it deletes only its own queues and topics.
func Max(e *Env) error {
	var messages, kmessages, kinflight, repeats int
	if err := e.PositiveInts(IntSetting{&messages, "BENCH_MAX_MESSAGES", 1000000}, IntSetting{&kmessages, "BENCH_MAX_KAFKA_MESSAGES", 500000},
		IntSetting{&kinflight, "BENCH_MAX_KAFKA_INFLIGHT", 1000}, IntSetting{&repeats, "BENCH_MAX_REPEATS", 3}); err != nil {
		return err
	}
	const rinflight = 200 // mqbench inflight = PerfTest --confirm; prefetch = --qos
	stamp := time.Now().Format("150405")
	pt := perfTest{repo: e.Repo, dir: e.Dir, addr: "127.0.0.1:" + e.Setting("RABBITMQ_PORT", "5672"), window: rinflight, prefix: "mqbench-pt-max-" + stamp}
	k := kafkaTools{repo: e.Repo, dir: e.Dir, bootstrap: "127.0.0.1:" + e.Setting("KAFKA_PORT", "9092"), prefix: "mqbench-pp-max-" + stamp}
	rabbit := fmt.Sprintf(`{ type: rabbitmq, url: "amqp://guest:guest@%s/", rabbitmq: { queue_type: classic, durable: true, confirms: true, persistent: true, prefetch: 200 } }`, pt.addr)
	kafka := fmt.Sprintf(`{ type: kafka, url: "kafka://%s", kafka: { acks: all, linger: 0s, batch_bytes: %d, topic: { partitions: 1 } } }`, k.bootstrap, kafkaBatchBytes)
	up := func(b string) (down func(), err error) {
		if err := e.BrokerUp(b); err != nil {
			return nil, err
		}
		return func() {
			if !e.Started(b) {
				switch b {
				case "rabbitmq":
					e.deleteRabbitQueues(`^(mqbench-pt-max-|mqbench\.bench\.max-rabbitmq-)`)
				case "kafka":
					k.deleteTopics(`mqbench-pp-max-.*|mqbench\.bench\.max-kafka-.*`)
				}
			}
			_ = e.BrokerDown(b)
		}, nil
	}
	e.Printf("== Max throughput, closed loop (mqbench rate: max) vs the brokers' own tools, %d cores, %d run(s) each, interleaved\n", Cores(), repeats)
	type series map[string][]float64
	// 1. RabbitMQ
	down, err := up("rabbitmq")
	if err != nil {
		return err
	}
	version, _ := exec.Command("dpkg-query", "-W", "-f=${Version}", "rabbitmq-server").Output()
	e.Printf("\n-- RabbitMQ %s, %d x 12 B, classic durable queue, persistent, confirms (window %d), prefetch 200, 1 producer + 1 consumer: mqbench (k6, amqp091-go) vs PerfTest %s (Java client), %s\n",
		strings.SplitN(string(version), "-", 2)[0], messages, rinflight, perfTestVersion(e.Repo), pt.addr)
	e.Printf("%-4s %-12s %-50s %s\n", "run", "first", "mqbench: sent/s acked/s recv/s e2e/s (problems)", "PerfTest: sent/s confirmed/s recv/s")
	r := series{}
	for i := 1; i <= repeats; i++ {
		var m maxRow
		var p [5]float64
		err := interleave(i, func() (err error) {
			m, err = e.maxRun(fmt.Sprintf("max-rabbitmq-%d", i), rabbit, "12B", messages, rinflight)
			return err
		}, func() (err error) { p, err = pt.max(fmt.Sprintf("%s-%d", pt.prefix, i), messages); return err })
		if err != nil {
			down()
			return err
		}
		for j, name := range []string{"ks", "ka", "kr", "ke", "k50", "k99"} {
			r[name] = append(r[name], m.v[j])
		}
		for j, name := range []string{"ps", "pc", "pr", "p50", "p99"} {
			r[name] = append(r[name], p[j])
		}
		e.Printf("%-4d %-12s %-50s %.0f %.0f %.0f\n", i, map[bool]string{true: "mqbench", false: "PerfTest"}[i%2 == 1],
			fmt.Sprintf("%.0f %.0f %.0f %.0f %s", m.v[0], m.v[1], m.v[2], m.v[3], m.flag()), p[0], p[1], p[2])
	}
	down()

	// 2. Kafka
	if down, err = up("kafka"); err != nil {
		return err
	}
	e.Printf("\n-- Kafka 4.3.1, %d x 1 KB, acks=all, linger 0, batches <= %d B, 1 partition, 1 producer: mqbench (k6, franz-go, inflight %d, + 1 consumer) vs ProducerPerformance --throughput -1 (Java client), %s\n",
		kmessages, kafkaBatchBytes, kinflight, k.bootstrap)
	// A broker JVM started seconds ago answers slower (the kafka section): warm it first.
	if _, err := e.maxRun("max-kafka-warmup", kafka, "1KB", min(kmessages, 50000), kinflight); err != nil {
		down()
		return err
	}
	e.Printf("%-4s %-12s %-50s %s\n", "run", "first", "mqbench: sent/s recv/s e2e/s (problems)", "ProducerPerformance: records/s (steady state)")
	kf := series{}
	for i := 1; i <= repeats; i++ {
		var m maxRow
		var p [4]float64
		err := interleave(i, func() (err error) {
			m, err = e.maxRun(fmt.Sprintf("max-kafka-%d", i), kafka, "1KB", kmessages, kinflight)
			return err
		}, func() (err error) { p, err = k.max(fmt.Sprintf("%s-%d", k.prefix, i), kmessages); return err })
		if err != nil {
			down()
			return err
		}
		for j, name := range []string{"ks", "", "kr", "ke", "k50", "k99"} {
			if name != "" {
				kf[name] = append(kf[name], m.v[j])
			}
		}
		for j, name := range []string{"ps", "pst", "p50", "p99"} {
			kf[name] = append(kf[name], p[j])
		}
		e.Printf("%-4d %-12s %-50s %.0f (%.0f)\n", i, map[bool]string{true: "mqbench", false: "ProducerPerf"}[i%2 == 1],
			fmt.Sprintf("%.0f %.0f %.0f %s", m.v[0], m.v[2], m.v[3], m.flag()), p[0], p[1])
	}
	down()

	// The table: medians over the runs.
	t := e.Table([3]int{52, 14, 14}, "native")
	rs, ps := t.Medians("RabbitMQ 12 B, sent msg/s (PerfTest)", r["ks"], r["ps"])
	t.Medians("RabbitMQ 12 B, confirmed msg/s", r["ka"], r["pc"])
	t.Medians("RabbitMQ 12 B, received msg/s", r["kr"], r["pr"])
	t.Row("RabbitMQ 12 B, mqbench e2e msg/s", fmt.Sprintf("%.0f", mathRound(Median(r["ke"]))), "", "")
	t.Medians("RabbitMQ publish -> confirm p50, us (closed loop)", r["k50"], r["p50"])
	t.Medians("RabbitMQ publish -> confirm p99, us (closed loop)", r["k99"], r["p99"])
	ks, kp := t.Medians("Kafka 1 KB acks=all, records/s (ProducerPerformance)", kf["ks"], kf["ps"])
	pst := mathRound(Median(kf["pst"]))
	t.Row("Kafka, ProducerPerf after its first 20 % (warm JVM)", "", fmt.Sprintf("%.0f", pst), Ratio(ks, pst)+"x")
	t.Row("Kafka, mqbench received msg/s / e2e msg/s", fmt.Sprintf("%.0f / %.0f", mathRound(Median(kf["kr"])), mathRound(Median(kf["ke"]))), "", "")
	t.Medians("Kafka send -> ack p50, us (closed loop)", kf["k50"], kf["p50"])
	t.Medians("Kafka send -> ack p99, us (closed loop)", kf["k99"], kf["p99"])
	e.Printf(`Closed loops: each tool sends as fast as acknowledgements return, so the rates are the
broker's (and these %d cores') with each client's overhead, and the latencies are
those of a full window (not open-model latencies). Figures are medians over %d run(s),
each run counting every message from its first send. mqbench: sent/s over first -> last
send, received/s over first -> last receipt, e2e over first send -> last receipt, one k6
process that also consumes. PerfTest: its summary's "sending/receiving rate avg" (whole run,
JVM start-up included), confirmed/s from its per-second CSV; it runs producer and consumer in
one JVM too. ProducerPerformance has no consumer and no window of its own but
buffer.memory (32 MB, ~32,000 records of 1 KB): its latency is the queueing in that buffer.
Kafka: both idempotent, up to 5 requests in flight, no compression; mqbench's window
%d messages.
(k6 logs and summaries, PerfTest and ProducerPerformance output: %s)
`, Cores(), repeats, kinflight, e.Dir)
	// Two brokers, two headlines.
	if err := e.Headline("max", "RabbitMQ closed loop, sent msg/s (PerfTest)", fmt.Sprintf("%.0f", rs), fmt.Sprintf("%.0f PerfTest", ps), Ratio(rs, ps)+"x"); err != nil {
		return err
	}
	return e.Headline("max", "Kafka closed loop, records/s (ProducerPerformance)", fmt.Sprintf("%.0f", ks), fmt.Sprintf("%.0f ProducerPerformance", kp), Ratio(ks, kp)+"x")
}

// maxRow is a closed-loop run: sender, ack, receiver and e2e rates, publish p50 and p99 (µs),
// and what went wrong (not every message sent and received, any lost, publish errors).
type maxRow struct {
	v        [6]float64
	problems []string
}

func (m maxRow) flag() string {
	if len(m.problems) == 0 {
		return ""
	}
	return "(" + strings.Join(m.problems, ",") + ")"
}

// maxRun runs n messages of size as a rate: max cell (inflight in flight, 5 min at most,
// 10 s drain, 1 producer and 1 consumer) on broker.
func (e *Env) maxRun(name, broker, size string, n, inflight int) (maxRow, error) {
	f, err := e.ClosedLoop(name, fmt.Sprintf("%d x %s, rate max, inflight %d", n, size, inflight), broker,
		childrun.Workload{Duration: 5 * time.Minute, Drain: 10 * time.Second, Producers: 1, Consumers: 1},
		childrun.Cell{Size: size, Messages: n, Inflight: inflight},
		"sender_rate", "ack_rate", "receiver_rate", "e2e_rate", "publish_p50_us", "publish_p99_us", "sent", "received", "lost", "publish_errors")
	if err != nil {
		return maxRow{}, err
	}
	var m maxRow
	for i := range m.v {
		m.v[i] = mathRound(f[i])
	}
	if f[6] != float64(n) {
		m.problems = append(m.problems, fmt.Sprintf("sent=%.0f", f[6]))
	}
	if f[7] != f[6] {
		m.problems = append(m.problems, fmt.Sprintf("received=%.0f", f[7]))
	}
	if f[8] != 0 {
		m.problems = append(m.problems, fmt.Sprintf("lost=%.0f", f[8]))
	}
	if f[9] != 0 {
		m.problems = append(m.problems, fmt.Sprintf("errors=%.0f", f[9]))
	}
	return m, nil
}

// perfTestVersion is the PerfTest version pinned in brokers/perftest/pom.xml.
func perfTestVersion(repo string) string {
	pom, _ := os.ReadFile(filepath.Join(repo, "brokers", "perftest", "pom.xml"))
	if g := regexp.MustCompile(`<perftest.version>(.*)</perftest.version>`).FindSubmatch(pom); g != nil {
		return string(g[1])
	}
	return ""
}

var (
	ptSendingAvg   = regexp.MustCompile(`sending rate avg: ([0-9.]+) msg/s`)
	ptReceivingAvg = regexp.MustCompile(`receiving rate avg: ([0-9.]+) msg/s`)
)

// max runs PerfTest's closed loop of n messages of 12 B through the default exchange into
// queue (deleted afterwards): sent/s and received/s (its summary's averages), confirmed/s
// (its per-second CSV's rates weighted by their intervals), confirm p50 and p99 (µs).
func (p perfTest) max(queue string, n int) ([5]float64, error) {
	var out [5]float64
	log, file := filepath.Join(p.dir, queue+".log"), filepath.Join(p.dir, queue+".csv")
	_ = os.Remove(file)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n/1000+120)*time.Second)
	defer cancel()
	text, err := exec.CommandContext(ctx, filepath.Join(p.repo, "brokers", "perftest", "perftest.sh"), "-h", "amqp://guest:guest@"+p.addr,
		"-x", "1", "-y", "1", "-s", "12", "-C", strconv.Itoa(n), "-D", strconv.Itoa(n), "-c", strconv.Itoa(p.window), "-q", "200", "-A", "100", "-f", "persistent",
		"-u", queue, "-k", queue, "-e", "amq.default", "-p", "-ad", "false", "-qa", "x-queue-type=classic", "-i", "1", "-o", file).CombinedOutput()
	_ = os.WriteFile(log, text, 0o644)
	if derr := exec.Command(filepath.Join(p.repo, "scripts", "brokers", "rabbitmqctl.sh"), "-q", "delete_queue", queue).Run(); derr != nil {
		fmt.Fprintf(os.Stderr, "warning: could not delete queue %s\n", queue)
	}
	if err != nil || !strings.Contains(string(text), "Producer reached message limit, Consumer reached message limit") {
		return out, fmt.Errorf("PerfTest did not send and receive %d messages (%v); end of %s: %s", n, err, log, childrun.LastLines(string(text), 20))
	}
	s, r, l := ptSendingAvg.FindSubmatch(text), ptReceivingAvg.FindSubmatch(text), ptSummary.FindSubmatch(text)
	if s == nil || r == nil || l == nil {
		return out, fmt.Errorf("no rate or confirm latency summary in %s", log)
	}
	out[0], _ = strconv.ParseFloat(string(s[1]), 64)
	out[2], _ = strconv.ParseFloat(string(r[1]), 64)
	out[3], _ = strconv.ParseFloat(string(l[2]), 64)
	out[4], _ = strconv.ParseFloat(string(l[5]), 64)
	rows, err := os.ReadFile(file)
	if err != nil {
		return out, err
	}
	out[1] = confirmedRate(rows)
	out[0], out[1], out[2] = mathRound(out[0]), mathRound(out[1]), mathRound(out[2])
	return out, nil
}

// confirmedRate is PerfTest's confirmed rate over its whole run: each second's rate times its
// length, over the run's.
func confirmedRate(rows []byte) float64 {
	recs, err := csv.NewReader(strings.NewReader(string(rows))).ReadAll()
	if err != nil || len(recs) < 2 {
		return 0
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var total, prev float64
	for _, rec := range recs[1:] {
		t, _ := strconv.ParseFloat(rec[col["time (s)"]], 64)
		c, _ := strconv.ParseFloat(rec[col["confirmed (msg/s)"]], 64)
		total += c * (t - prev)
		prev = t
	}
	if prev == 0 {
		return 0
	}
	return total / prev
}

var (
	ppTotal      = regexp.MustCompile(`sent, ([0-9.]+) records/sec .*, ([0-9]+) ms 50th, [0-9]+ ms 95th, ([0-9]+) ms 99th`)
	ppSteadyRate = regexp.MustCompile(`steady state records sent, ([0-9.]+) records/sec`)
)

// max runs ProducerPerformance's closed loop (--throughput -1) of n records of 1 KB into topic,
// created first with one partition: records/s (whole run), records/s after its first 20 %,
// p50 and p99 (µs, whole run).
func (k kafkaTools) max(topic string, n int) ([4]float64, error) {
	var out [4]float64
	log := filepath.Join(k.dir, topic+".log")
	if b, err := k.tool(context.Background(), "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", k.bootstrap, "--create", "--topic", topic,
		"--partitions", "1", "--replication-factor", "1"); err != nil {
		return out, fmt.Errorf("could not create topic %s: %s", topic, childrun.LastLines(string(b), 5))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n/1000+120)*time.Second)
	defer cancel()
	text, err := k.tool(ctx, "org.apache.kafka.tools.ProducerPerformance", "--bootstrap-server", k.bootstrap, "--topic", topic,
		"--num-records", strconv.Itoa(n), "--warmup-records", strconv.Itoa(n/5), "--record-size", "1024", "--throughput", "-1",
		"--reporting-interval", "600000", "--command-property", "acks=all", "linger.ms=0", "compression.type=none", "batch.size="+strconv.Itoa(kafkaBatchBytes))
	_ = os.WriteFile(log, text, 0o644)
	if err != nil || strings.Contains(string(text), "Exception") {
		return out, fmt.Errorf("ProducerPerformance failed (%v); end of %s: %s", err, log, childrun.LastLines(string(text), 20))
	}
	var total string
	for _, l := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(l, strconv.Itoa(n)+" records sent, ") {
			total = l
			break
		}
	}
	t, s := ppTotal.FindStringSubmatch(total), ppSteadyRate.FindSubmatch(text)
	if t == nil || s == nil {
		return out, fmt.Errorf("no total or steady-state line from ProducerPerformance in %s", log)
	}
	out[0], _ = strconv.ParseFloat(t[1], 64)
	out[1], _ = strconv.ParseFloat(string(s[1]), 64)
	p50, _ := strconv.Atoi(t[2])
	p99, _ := strconv.Atoi(t[3])
	out[0], out[1], out[2], out[3] = mathRound(out[0]), mathRound(out[1]), float64(p50*1000), float64(p99*1000)
	return out, nil
}
