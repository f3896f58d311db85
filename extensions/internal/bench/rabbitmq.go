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
	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// RabbitMQ: 1 KB messages, classic durable queue, persistent messages, publisher confirms, one
// producer and one consumer (prefetch 200, acks with multiple=true): mqbench (bin/k6,
// amqp091-go) beside RabbitMQ's own PerfTest (pinned in brokers/perftest/pom.xml), same
// broker, same session, interleaved so both see the same machine noise.
//  1. publish latency (publish -> the broker's confirm) p50 / p99 at 1,000 msg/s; mqbench
//     measures 10 s after a 2 s warm-up, PerfTest (no warm-up option) reports its whole 12 s
//     run; both after the ladder (2), on a warm broker
//  2. the highest rate held, one rule for both: mean sent, confirmed and received rates all
//     >= 98 % of the target (PerfTest: after its first 2 s), no error or nack, and for mqbench
//     nothing lost (its ledger)
//
// BENCH_RATES and BENCH_DURATION override the search; BENCH_PT_CONFIRM (1000) is PerfTest's
// window of unconfirmed publishes. Starts RabbitMQ if needed and stops it at the end only if
// this section started it; on one it did not start, it deletes the queues its runs left.
func RabbitMQ(e *Env) error {
	duration, err := e.Seconds("BENCH_DURATION", "60s")
	if err != nil {
		return err
	}
	rates, err := e.Ints("BENCH_RATES", []int{2000, 5000, 7500, 10000, 12500, 15000, 20000, 30000})
	if err != nil {
		return err
	}
	window, err := e.PositiveInt("BENCH_PT_CONFIRM", 1000)
	if err != nil {
		return err
	}
	pt := perfTest{repo: e.Repo, dir: e.Dir, addr: "127.0.0.1:" + e.Setting("RABBITMQ_PORT", "5672"), window: window,
		prefix: "mqbench-pt-" + time.Now().Format("150405")}
	broker := fmt.Sprintf(`{ type: rabbitmq, url: "amqp://guest:guest@%s/", rabbitmq: { queue_type: classic, durable: true, confirms: true, persistent: true, prefetch: 200 } }`, pt.addr)
	if err := e.BrokerUp("rabbitmq"); err != nil {
		return err
	}
	defer func() {
		if !e.Started("rabbitmq") { // PerfTest queues that outlived their run, and any a crashed k6 left
			e.deleteRabbitQueues(`^(mqbench-pt-|mqbench\.bench\.rabbitmq-)`)
		}
		_ = e.BrokerDown("rabbitmq")
	}()
	version, _ := exec.Command("dpkg-query", "-W", "-f=${Version}", "rabbitmq-server").Output()
	ptVersion := perfTestVersion(e.Repo)
	e.Printf("== RabbitMQ %s, 1 KB, classic durable queue, persistent, confirms, 1 producer + 1 consumer: mqbench (k6, amqp091-go) vs PerfTest %s (Java client), %s, %d cores\n",
		strings.SplitN(string(version), "-", 2)[0], ptVersion, pt.addr, Cores())

	// 2. the ladder, one rate at a time for both (batch: rate / 1000, k6 at <= 1,000
	// iterations/s: at batch 1, k6's iteration machinery was 27 % of its CPU at 10,000 msg/s,
	// CPU the broker needs on 2 cores)
	e.Printf("\n%-8s %-6s %-40s %s\n", "rate", "batch", "mqbench: sent/s recv/s dropped lost", "PerfTest: sent/s confirmed/s recv/s")
	rung, err := Step("rabbitmq-rate", broker, "1KB", duration)
	if err != nil {
		return err
	}
	mq := &ladder.Mqbench{Step: rung, K6: e.K6, Dir: e.Dir, Judge: []string{"rates"}, Columns: []string{"sent/s", "recv/s", "dropped", "lost", "errors"}}
	secs := int(duration.Seconds())
	best, err := e.Ladder(rates, 1000, []ladder.Probe{mq, ptProbe{pt, secs}}, "%-8s %-6s %-40s %s")
	if err != nil {
		return err
	}
	kBest, pBest := best[0], best[1]

	// 1. publish -> confirm latency at 1,000 msg/s, once the ladder has run: as the first run
	// after the broker's start, mqbench's cell met ~200 ms stalls every 2-3 s
	k, err := e.FixedRate("rabbitmq-latency-1000", broker, 1000, 10*time.Second, "publish_p50_us", "publish_p99_us")
	if err != nil {
		return err
	}
	p, err := pt.run(1000, 10+2, pt.prefix+"-latency")
	if err != nil {
		return err
	}
	e.Printf("\n%-44s %16s %16s %8s\n", "", "mqbench (k6)", "PerfTest", "ratio")
	e.Printf("%-44s %14.0fus %14.0fus %7sx\n", "publish->confirm p50 at 1,000 msg/s", k[0], p.p50, Ratio(k[0], p.p50))
	e.Printf("%-44s %14.0fus %14.0fus %7sx\n", "publish->confirm p99 at 1,000 msg/s", k[1], p.p99, Ratio(k[1], p.p99))
	ratio := Ratio(float64(kBest.Rate), float64(pBest.Rate)) + "x"
	e.Printf("%-44s %16s %16s %8s\n", "highest rate held, msg/s (batch)", fmt.Sprintf("%d (%s)", kBest.Rate, batchLabel(kBest)), strconv.Itoa(pBest.Rate), ratio)
	if err := e.Headline("rabbitmq", "highest rate held, msg/s (PerfTest)", strconv.Itoa(kBest.Rate), fmt.Sprintf("%d PerfTest", pBest.Rate), ratio); err != nil {
		return err
	}
	e.Printf(`Publish latency = publish -> the broker's basic.ack (publisher confirm), per message. Both
tools run 1 producer + 1 consumer (prefetch 200, a multiple=true ack per ~100 deliveries)
in one process (k6 / PerfTest's JVM), whose consumer competes for the %d cores. Both
hold a rate if their sent, confirmed and received rates stay >= 98 %% of the target on
average, without an error; mqbench also must have lost nothing (its ledger). PerfTest's rate
limiter makes up for a stall by sending faster afterwards, mqbench's open model counts a
dropped iteration instead (printed beside its rates). PerfTest has no warm-up: its latency
summary covers its whole 12 s run, JVM start-up included, from a ~1,000-sample reservoir (its
per-second p99 after 2 s: median %.0fus / max %.0fus); mqbench's figures are exact (HdrHistogram) over 10 s
after a 2 s warm-up.
PerfTest publishes through amq.direct, mqbench through the default exchange; PerfTest's
window of unconfirmed publishes: %d. Rate ladder: %s msg/s, %d s
each after a 2 s warm-up; each tool stops at its first rate not held (holding the
top rate means "at least").
(k6 logs and summaries, PerfTest output and CSV: %s)
`, Cores(), p.p99Median, p.p99Max, window, joinInts(rates), secs, e.Dir)
	return nil
}

// deleteRabbitQueues deletes RabbitMQ's queues whose names regex matches (rabbitmqctl).
func (e *Env) deleteRabbitQueues(regex string) {
	ctl := filepath.Join(e.Repo, "scripts", "brokers", "rabbitmqctl.sh")
	out, _ := exec.Command(ctl, "-q", "list_queues", "name").Output()
	re := regexp.MustCompile(regex)
	for _, q := range strings.Fields(string(out)) {
		if re.MatchString(q) {
			if err := exec.Command(ctl, "-q", "delete_queue", q).Run(); err != nil {
				fmt.Fprintf(os.Stderr, "warning: could not delete queue %s\n", q)
			}
		}
	}
}

// perfTest runs RabbitMQ's PerfTest (brokers/perftest/perftest.sh: the pinned jars).
type perfTest struct {
	repo, dir, addr, prefix string
	window                  int
}

// ptRun is what a PerfTest run reports: its end-of-run confirm latency p50 / p99 (µs, the
// whole run) and, over its per-second rows after the 2 s warm-up, the mean published,
// confirmed, nacked and received msg/s and the median and max of the seconds' p99 confirm
// latency (µs).
type ptRun struct {
	p50, p99                               float64
	published, confirmed, nacked, received float64
	p99Median, p99Max                      float64
}

var ptSummary = regexp.MustCompile(`confirm latency min/median/75th/95th/99th ([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+) µs`)

// run runs PerfTest at rate for secs into queue: one producer, one consumer, as mqbench:
// persistent messages into a durable classic queue (bound to amq.direct), confirms with its
// window, prefetch 200 and one multiple=true ack per 100 deliveries. Its console output goes
// to Dir/QUEUE.log, its per-second rows to Dir/QUEUE.csv.
func (p perfTest) run(rate, secs int, queue string) (ptRun, error) {
	log, file := filepath.Join(p.dir, queue+".log"), filepath.Join(p.dir, queue+".csv")
	_ = os.Remove(file)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs+60)*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(p.repo, "brokers", "perftest", "perftest.sh"), "-h", "amqp://guest:guest@"+p.addr,
		"-x", "1", "-y", "1", "-s", "1024", "-r", strconv.Itoa(rate), "-c", strconv.Itoa(p.window), "-z", strconv.Itoa(secs), "-f", "persistent",
		"-u", queue, "-ad", "true", "-qa", "x-queue-type=classic", "-e", "amq.direct", "-p", "-q", "200", "-A", "100",
		"-i", "1", "-o", file).CombinedOutput()
	_ = os.WriteFile(log, out, 0o644)
	rows, rerr := os.ReadFile(file)
	if err != nil || !strings.Contains(string(out), "Reached time limit") || rerr != nil || len(rows) == 0 {
		return ptRun{}, fmt.Errorf("PerfTest failed at %d msg/s; end of %s: %s", rate, log, childrun.LastLines(string(out), 20))
	}
	return parsePT(out, rows, 2)
}

// parsePT reads PerfTest's console output (its confirm latency summary) and its per-second
// CSV rows from warmup seconds on.
func parsePT(out, rows []byte, warmup float64) (ptRun, error) {
	g := ptSummary.FindSubmatch(out)
	if g == nil {
		return ptRun{}, fmt.Errorf("no confirm latency summary in PerfTest's output")
	}
	var r ptRun
	r.p50, _ = strconv.ParseFloat(string(g[2]), 64)
	r.p99, _ = strconv.ParseFloat(string(g[5]), 64)
	recs, err := csv.NewReader(strings.NewReader(string(rows))).ReadAll()
	if err != nil || len(recs) < 2 {
		return ptRun{}, fmt.Errorf("PerfTest's CSV: %v", err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	num := func(rec []string, name string) float64 {
		i, ok := col[name]
		if !ok || i >= len(rec) {
			return 0
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(rec[i]), 64)
		return v
	}
	var p99s []float64
	for _, rec := range recs[1:] {
		if num(rec, "time (s)") < warmup+0.5 {
			continue
		}
		r.published += num(rec, "published (msg/s)")
		r.confirmed += num(rec, "confirmed (msg/s)")
		r.nacked += num(rec, "nacked (msg/s)")
		r.received += num(rec, "received (msg/s)")
		p99s = append(p99s, num(rec, "99th p. confirm latency (µs)"))
	}
	n := float64(len(p99s))
	if n == 0 {
		return ptRun{}, fmt.Errorf("no PerfTest rows after the warm-up")
	}
	r.published, r.confirmed, r.nacked, r.received = r.published/n, r.confirmed/n, r.nacked/n, r.received/n
	r.p99Median = Median(p99s)
	for _, v := range p99s {
		r.p99Max = max(r.p99Max, v)
	}
	return r, nil
}

// ptProbe is PerfTest as the ladder's peer: held when its mean sent, confirmed and received
// rates all reach 98 % of the rate, without a nack.
type ptProbe struct {
	pt   perfTest
	secs int
}

func (p ptProbe) Rules() int { return 1 }

func (p ptProbe) Measure(rate, _ int, _ []bool) ([]bool, string, error) {
	r, err := p.pt.run(rate, p.secs+2, p.pt.prefix+"-rate-"+strconv.Itoa(rate))
	if err != nil {
		return nil, "", err
	}
	line := fmt.Sprintf("%.0f %.0f %.0f", r.published, r.confirmed, r.received)
	if r.nacked != 0 {
		line += " nacked"
	}
	least := min(r.published, r.confirmed, r.received)
	return []bool{least >= 0.98*float64(rate) && r.nacked == 0}, line, nil
}

var _ ladder.Probe = ptProbe{}
