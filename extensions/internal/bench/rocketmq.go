package bench

import (
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

// RocketMQ: 1 KB messages, one name server + broker (scripts/brokers/start.sh rocketmq):
// mqbench (bin/k6, rocketmq-client-go) beside RocketMQ's own mqadmin checkMsgSendRT (the
// pinned tools jar, scripts/brokers/mqadmin.sh), same broker, same session, interleaved (first
// tool alternating).
//  1. sequential synchronous sends (the headline): checkMsgSendRT -a BENCH_RMQ_MESSAGES
//     (2,000) -s 1024 sends one message at a time, each waiting for its send result, and
//     prints the mean round trip (ms, leaving out the first send); mqbench sends as many with
//     send: sync, one producer, rate: max, inflight 1, consumers 0, its publish latency mean.
//     Compared as sends per second (1 / mean round trip): higher is better.
//  2. throughput, producer only, mqbench alone (the pinned jars hold no producer benchmark):
//     send async (inflight 1024) and async batches (publish_batch BENCH_RMQ_BATCH, 32), rate:
//     max, BENCH_RMQ_SECONDS (10) each, msg/s.
//
// BENCH_RMQ_REPEATS (3) interleaved pairs, medians taken. Starts RocketMQ if needed and stops
// it (removing its data) only if this section started it.
func RocketMQ(e *Env) error {
	var messages, secs, repeats, batch int
	if err := e.PositiveInts(IntSetting{&messages, "BENCH_RMQ_MESSAGES", 2000}, IntSetting{&secs, "BENCH_RMQ_SECONDS", 10},
		IntSetting{&repeats, "BENCH_RMQ_REPEATS", 3}, IntSetting{&batch, "BENCH_RMQ_BATCH", 32}); err != nil {
		return err
	}
	url := "rocketmq://127.0.0.1:" + e.Setting("ROCKETMQ_NAMESRV_PORT", "9976")
	stamp := time.Now().Format("150405")
	topic := "mqbench-bench-rt-" + stamp // checkMsgSendRT's topic, created here and deleted after
	admin := func(args ...string) ([]byte, error) {
		return exec.Command(filepath.Join(e.Repo, "scripts", "brokers", "mqadmin.sh"), args...).CombinedOutput()
	}
	if err := e.BrokerUp("rocketmq"); err != nil {
		return err
	}
	defer func() {
		if state, _ := e.BrokerStatus("rocketmq"); state == "running" {
			_, _ = admin("deleteTopic", "-t", topic, "-c", "MqbenchCluster")
		}
		_ = e.BrokerDown("rocketmq")
	}()
	if out, err := admin("updateTopic", "-t", topic, "-c", "MqbenchCluster", "-r", "8", "-w", "8"); err != nil {
		log := filepath.Join(e.Dir, "rocketmq-rt-topic.log")
		_ = os.WriteFile(log, out, 0o644)
		return fmt.Errorf("could not create topic %s; see %s", topic, log)
	}
	// rt is checkMsgSendRT's mean round trip in ms ("Avg RT: 2.96"), failing on any failed send
	// but the first (which may fail while the route is fetched).
	rt := func(i int) (float64, string, error) {
		log := filepath.Join(e.Dir, fmt.Sprintf("rocketmq-checkMsgSendRT-%d.log", i))
		out, err := admin("checkMsgSendRT", "-t", topic, "-a", strconv.Itoa(messages), "-s", "1024")
		_ = os.WriteFile(log, out, 0o644)
		if err != nil {
			return 0, "", fmt.Errorf("checkMsgSendRT failed; end of %s: %s", log, childrun.LastLines(string(out), 20))
		}
		text, bad, ok := parseSendRT(string(out))
		if !ok || bad > 0 {
			return 0, "", fmt.Errorf("checkMsgSendRT: no Avg RT or %d failed sends in %s", bad, log)
		}
		v, _ := strconv.ParseFloat(text, 64)
		return v, text, nil
	}
	// mq is a rate: max run with no consumer (count messages, else secs seconds): sent/s,
	// publish mean (µs), problems.
	mq := func(name, send string, inflight int, opts string, count int) (float64, float64, string, error) {
		d := time.Duration(secs) * time.Second
		if count > 0 {
			d = 120 * time.Second
		}
		f, err := e.ClosedLoop(name, fmt.Sprintf("1KB, rate max, send %s, inflight %d", send, inflight),
			fmt.Sprintf(`{ type: rocketmq, url: "%s", rocketmq: { send: %s, queues: 8 %s } }`, url, send, opts),
			childrun.Workload{Destination: "mqbench-bench-" + name + "-" + stamp, Duration: d, Drain: 5 * time.Second, Producers: 1, Consumers: 0},
			childrun.Cell{Size: "1KB", Inflight: inflight, Messages: count}, "sender_rate", "publish_mean_us", "sent", "received", "lost", "publish_errors")
		if err != nil {
			return 0, 0, "", err
		}
		return mathRound(f[0]), mathRound(f[1]), problems(f[2], f[3], f[4], f[5], false), nil
	}
	e.Printf("== RocketMQ 5.3.3, 1 KB: mqbench (k6, rocketmq-client-go) vs mqadmin checkMsgSendRT, %s, %d cores, %d sequential sync sends per run, %d interleaved pair(s)\n", url, Cores(), messages, repeats)

	// 1. sequential synchronous sends
	e.Printf("\n%-4s %-16s %-40s %s\n", "run", "first", "mqbench send sync: mean us (problems)", "checkMsgSendRT: mean ms")
	var k1, b1 []float64
	for i := 1; i <= repeats; i++ {
		var mean, b float64
		var probs, bText string
		err := interleave(i, func() (err error) {
			_, mean, probs, err = mq(fmt.Sprintf("rmq-sync-%d", i), "sync", 1, "", messages)
			return err
		}, func() (err error) { b, bText, err = rt(i); return err })
		if err != nil {
			return err
		}
		k1, b1 = append(k1, mean), append(b1, b)
		e.Printf("%-4d %-16s %-40s %s\n", i, map[bool]string{true: "mqbench", false: "checkMsgSendRT"}[i%2 == 1], fmt.Sprintf("%.0f (%s)", mean, probs), bText)
	}
	// 2. throughput, mqbench alone
	a2, _, a2p, err := mq("rmq-max-async", "async", 1024, "", 0)
	if err != nil {
		return err
	}
	b2, _, b2p, err := mq("rmq-max-batch", "async", 1024, ", publish_batch: "+strconv.Itoa(batch), 0)
	if err != nil {
		return err
	}
	t := e.Table([3]int{56, 14, 16}, "checkMsgSendRT")
	mu, nms := mathRound(Median(k1)), Median(b1)
	ha, hb := mathRound(1e6/mu), mathRound(1e3/nms)
	t.Row("sync send, mean round trip, us", fmt.Sprintf("%.0f", mu), fmt.Sprintf("%.0f", mathRound(nms*1000)), "")
	t.Row("sequential sync sends, msg/s (1 / mean round trip)", fmt.Sprintf("%.0f", ha), fmt.Sprintf("%.0f", hb), Ratio(ha, hb)+"x")
	t.Row("producer only, send async, msg/s (problems)", fmt.Sprintf("%.0f (%s)", a2, a2p), "-", "")
	t.Row(fmt.Sprintf("producer only, async batches of %d, msg/s (problems)", batch), fmt.Sprintf("%.0f (%s)", b2, b2p), "-", "")
	e.Printf(`Row 1-2: one message at a time, each waiting for its send result, %d per run, medians
over %d run(s); checkMsgSendRT times each send in whole milliseconds
(System.currentTimeMillis) and averages them without the first, mqbench in microseconds
from its first send. checkMsgSendRT is a JVM started per run (its start-up is not in its
figure); mqbench's k6 process also runs its measurement. Rows 3-4: mqbench's closed loop
(%d s, 1 producer, no consumer), no native figure: the pinned jars hold no producer
benchmark.
(k6 logs and summaries, checkMsgSendRT output: %s)
`, messages, repeats, secs, e.Dir)
	return e.Headline("rocketmq", "sequential sync sends, msg/s = 1 / mean round trip (checkMsgSendRT)", fmt.Sprintf("%.0f", ha), fmt.Sprintf("%.0f checkMsgSendRT", hb), Ratio(ha, hb)+"x")
}

var sendRTAvg = regexp.MustCompile(`(?m)^Avg RT: *([0-9.]+)`)

// parseSendRT reads checkMsgSendRT's output: its mean round trip (ms, the last "Avg RT:", as
// printed) and how many sends failed after the first (per send: "broker-a  QID  true|false  RT").
func parseSendRT(out string) (avg string, failed int, ok bool) {
	seen := 0
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) == 4 && f[2] == "false" {
			if seen++; seen > 1 {
				failed++
			}
		}
	}
	m := sendRTAvg.FindAllStringSubmatch(out, -1)
	if m == nil {
		return "", failed, false
	}
	_, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	return m[len(m)-1][1], failed, err == nil
}
