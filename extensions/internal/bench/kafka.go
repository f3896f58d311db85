package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// kafkaBatchBytes is the most a produce request carries per partition, for both clients:
// mqbench's default batch_bytes (franz-go's ProducerBatchMaxBytes). The Java client's own
// default batch.size, 16 KB, held ~27,000 msg/s where 1 MB held 44,000 (ProducerPerformance,
// 2 cores).
const kafkaBatchBytes = 1000012

// Kafka: 1 KB messages, acks=all, linger 0, one partition: mqbench (bin/k6, franz-go) beside
// Kafka's own ProducerPerformance (kafka-tools, the pinned jars), same broker, same session,
// interleaved so both see the same machine noise.
//  1. publish latency (send -> acks=all acknowledgement) p50 / p99 / mean at 1,000 msg/s, 10 s
//     measured after a 2 s warm-up (ProducerPerformance: --warmup-records, steady state),
//     measured after the ladder (2), on a warm broker
//  2. the highest rate held over BENCH_DURATION (60s), producers only (ProducerPerformance has
//     no consumer; so the mqbench cells have consumers: 0): records/s sent and acknowledged
//     >= 98 % of the target with no error, the same rule for both
//
// BENCH_RATES overrides the ladder. Starts Kafka if needed and stops it at the end only if
// this section started it; on one it did not start, it deletes the topics its runs made.
func Kafka(e *Env) error {
	duration, err := e.Seconds("BENCH_DURATION", "60s")
	if err != nil {
		return err
	}
	rates, err := e.Ints("BENCH_RATES", []int{5000, 20000, 40000, 60000, 80000, 90000, 100000, 120000, 150000, 200000, 250000, 300000})
	if err != nil {
		return err
	}
	k := kafkaTools{repo: e.Repo, dir: e.Dir, bootstrap: "127.0.0.1:" + e.Setting("KAFKA_PORT", "9092"),
		prefix: "mqbench-pp-" + time.Now().Format("150405")}
	broker := fmt.Sprintf(`{ type: kafka, url: "kafka://%s", kafka: { acks: all, linger: 0s, batch_bytes: %d } }`, k.bootstrap, kafkaBatchBytes)
	if err := e.BrokerUp("kafka"); err != nil {
		return err
	}
	defer func() {
		if !e.Started("kafka") { // the topics ProducerPerformance made, and any a crashed k6 left
			k.deleteTopics("mqbench-pp-.*|mqbench\\.bench\\.kafka-.*")
		}
		_ = e.BrokerDown("kafka")
	}()
	e.Printf("== Kafka 4.3.1, 1 KB, acks=all, linger 0, 1 partition: mqbench (k6, franz-go) vs ProducerPerformance (Java client), 127.0.0.1, %d cores\n", Cores())

	// 0. warm the broker for the ladder's first rung: a Kafka JVM started seconds ago answers
	// several times slower than a warm one (mqbench p50 3.2 ms cold vs 0.4-0.6 ms warm,
	// measured); neither tool's figures are kept from this run.
	if _, err := k.pp(2000, 5, k.prefix+"-warmup"); err != nil {
		return err
	}
	if _, err := e.FixedRate("kafka-warmup", broker, 2000, 5*time.Second); err != nil {
		return err
	}

	// 2. the ladder, one rate at a time for both (batch: rate / 5000, to keep k6 at <= 5,000
	// iterations/s)
	e.Printf("\n%-8s %-6s %-40s %s\n", "rate", "batch", "mqbench: sent/s acked/s dropped", "ProducerPerformance: records/s p99")
	rung, err := Step("kafka-rate", broker, "1KB", duration)
	if err != nil {
		return err
	}
	rung.Consumers = 0
	mq := &ladder.Mqbench{Step: rung, K6: e.K6, Dir: e.Dir, Judge: []string{"acked"}, Columns: []string{"sent/s", "acked/s", "dropped", "errors"}}
	best, err := e.Ladder(rates, 5000, []ladder.Probe{mq, ppProbe{k, int(duration.Seconds())}}, "%-8s %-6s %-40s %s")
	if err != nil {
		return err
	}
	kBest, pBest := best[0], best[1]

	// 1. publish latency at 1,000 msg/s, 10 s after the warm-up, once the ladder has run: right
	// after the 5 s warm-ups, mqbench's cell still met a cold broker
	m, err := e.FixedRate("kafka-latency-1000", broker, 1000, 10*time.Second, "publish_p50_us", "publish_p99_us", "publish_mean_us")
	if err != nil {
		return err
	}
	p, err := k.pp(1000, 10, k.prefix+"-latency")
	if err != nil {
		return err
	}
	kavg, pavg := round1(m[2]), round1(p.avg)
	top := rates[len(rates)-1]
	e.Printf("\n%-44s %16s %16s %8s\n", "", "mqbench (k6)", "ProducerPerf", "ratio")
	e.Printf("%-44s %14.0fus %14.0fus %7sx\n", "publish p50 at 1,000 msg/s", m[0], p.p50, Ratio(m[0], p.p50))
	e.Printf("%-44s %14.0fus %14.0fus %7sx\n", "publish p99 at 1,000 msg/s", m[1], p.p99, Ratio(m[1], p.p99))
	e.Printf("%-44s %14.0fus %14.0fus %7sx\n", "publish mean at 1,000 msg/s", kavg, pavg, Ratio(kavg, pavg))
	ka, pa := Ceiling(kBest.Rate, top), Ceiling(pBest.Rate, top)
	e.Printf("%-44s %16s %16s %8s\n", "highest rate held, msg/s (batch)", ka+" ("+batchLabel(kBest)+")", pa, Ratio(float64(kBest.Rate), float64(pBest.Rate))+"x")
	if err := e.Headline("kafka", "highest rate held, msg/s (ProducerPerformance)", ka, pa+" ProducerPerformance", Ratio(float64(kBest.Rate), float64(pBest.Rate))+"x"); err != nil {
		return err
	}
	e.Printf(`Publish latency = send call -> acks=all acknowledgement, per message, one broker, one
partition; both clients idempotent, linger 0, no compression, up to 5 requests in flight,
batches of up to %d bytes (ProducerPerformance's batch.size set to mqbench's
batch_bytes; the Java default, 16 KB, holds far less).
ProducerPerformance keeps whole milliseconds (its p50 / p99 move in 1,000 us steps; its mean
is finer). It has no consumer and only produces, so the ladder's mqbench cells have
consumers: 0 too; both hold a rate when records sent and acknowledged reach 98 %% of it with
no error (mqbench: dropped iterations count against it). Rate ladder: %s msg/s,
%d s each after a 2 s warm-up; each tool stops at its first rate not held
(holding the top rate means "at least").
(k6 logs and summaries, ProducerPerformance output: %s)
`, kafkaBatchBytes, joinInts(rates), int(duration.Seconds()), e.Dir)
	return nil
}

// kafkaTools runs Kafka's own tools (scripts/brokers/kafka-tool.sh: the pinned jars).
type kafkaTools struct{ repo, dir, bootstrap, prefix string }

// ppRun is ProducerPerformance's steady state: records/s, latencies in µs, and whether its
// run logged an exception.
type ppRun struct {
	rate, avg, max, p50, p95, p99, p999 float64
	errors                              bool
}

var ppSteady = regexp.MustCompile(`([0-9.]+) records/sec .*, ([0-9.]+) ms avg latency, ([0-9.]+) ms max latency, ([0-9]+) ms 50th, ([0-9]+) ms 95th, ([0-9]+) ms 99th, ([0-9]+) ms 99[.]9th`)

// pp runs ProducerPerformance at rate for secs after 2 s of warm-up records into topic (its
// output kept in Dir/TOPIC.log) and reads its steady-state line.
func (k kafkaTools) pp(rate, secs int, topic string) (ppRun, error) {
	log := filepath.Join(k.dir, topic+".log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs*6+60)*time.Second)
	defer cancel()
	out, err := k.tool(ctx, "org.apache.kafka.tools.ProducerPerformance", "--bootstrap-server", k.bootstrap, "--topic", topic,
		"--num-records", strconv.Itoa(rate*(secs+2)), "--warmup-records", strconv.Itoa(rate*2),
		"--record-size", "1024", "--throughput", strconv.Itoa(rate), "--reporting-interval", "600000",
		"--command-property", "acks=all", "linger.ms=0", "compression.type=none", "batch.size="+strconv.Itoa(kafkaBatchBytes))
	_ = os.WriteFile(log, out, 0o644)
	if err != nil {
		return ppRun{}, fmt.Errorf("ProducerPerformance failed at %d msg/s (%v); end of %s:\n%s", rate, err, log, childrun.LastLines(string(out), 20))
	}
	r, ok := parsePP(out)
	if !ok {
		return ppRun{}, fmt.Errorf("no steady-state line from ProducerPerformance in %s: %s", log, childrun.LastLines(string(out), 20))
	}
	return r, nil
}

// parsePP reads ProducerPerformance's output: its last steady-state line, e.g. "10000 steady
// state records sent, 990.8 records/sec (0.97 MB/sec), 2.25 ms avg latency, 31.00 ms max
// latency, 2 ms 50th, 3 ms 95th, 6 ms 99th, 19 ms 99.9th.", and whether it logged an exception.
func parsePP(out []byte) (ppRun, bool) {
	var line string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.Contains(l, "steady state records sent") {
			line = l
		}
	}
	g := ppSteady.FindStringSubmatch(line)
	if g == nil {
		return ppRun{}, false
	}
	v := make([]float64, 7)
	for i := range v {
		v[i], _ = strconv.ParseFloat(g[i+1], 64)
		if i > 0 {
			v[i] *= 1e3
		}
	}
	return ppRun{v[0], v[1], v[2], v[3], v[4], v[5], v[6], strings.Contains(string(out), "Exception")}, true
}

// tool runs a Kafka tool class with args and returns its output (stdout and stderr).
func (k kafkaTools) tool(ctx context.Context, class string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(k.repo, "scripts", "brokers", "kafka-tool.sh"), append([]string{class}, args...)...)
	return cmd.CombinedOutput()
}

// deleteTopics deletes the topics regex matches (a warning when it cannot).
func (k kafkaTools) deleteTopics(regex string) {
	out, err := k.tool(context.Background(), "org.apache.kafka.tools.TopicCommand", "--bootstrap-server", k.bootstrap, "--delete", "--if-exists", "--topic", regex)
	if err != nil {
		f, _ := os.OpenFile(filepath.Join(k.dir, "kafka-tools.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		_, _ = f.Write(out)
		_ = f.Close()
		fmt.Fprintf(os.Stderr, "warning: could not delete the topics %s (see %s)\n", regex, filepath.Join(k.dir, "kafka-tools.log"))
	}
}

// ppProbe is ProducerPerformance as the ladder's peer: held when its records/s reach 98 % of
// the rate with no error. Each rung's topic goes after it (60 s rungs fill the disk: 100,000
// msg/s of 1 KB is 6 GB a rung).
type ppProbe struct {
	k    kafkaTools
	secs int
}

func (p ppProbe) Rules() int { return 1 }

func (p ppProbe) Measure(rate, _ int, _ []bool) ([]bool, string, error) {
	topic := p.k.prefix + "-rate-" + strconv.Itoa(rate)
	r, err := p.k.pp(rate, p.secs, topic)
	p.k.deleteTopics(topic)
	if err != nil {
		return nil, "", err
	}
	line := fmt.Sprintf("%.0f %.0fms", r.rate, r.p99/1e3)
	if r.errors {
		line += " errors"
	}
	return []bool{r.rate >= 0.98*float64(rate) && !r.errors}, line, nil
}

var _ ladder.Probe = ppProbe{}

// round1 is v rounded to one decimal (as printed with %.1f and read back).
func round1(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 1, 64), 64)
	return f
}

// batchLabel is a ladder's best batch, "-" when no rate was held.
func batchLabel(b ladder.Best) string {
	if b.Rate == 0 {
		return "-"
	}
	return strconv.Itoa(b.Batch)
}

// joinInts is vs space-separated.
func joinInts(vs []int) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " ")
}
