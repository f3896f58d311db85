package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
)

// Pulsar: 1 KB messages, one standalone broker: mqbench (bin/k6, pulsar-client-go) beside
// pulsar-perf (pulsar-testclient on the broker's jars, scripts/brokers/pulsar.sh), same
// broker, same session, interleaved (first tool alternating).
//  1. throughput, producer only: `pulsar-perf produce -r 100000000` (no practical rate limit:
//     it refuses 0; -o outstanding, batches of at most 100 messages / 1 ms, as mqbench's
//     default) vs mqbench rate: max with consumers: 0 (inflight BENCH_PULSAR_INFLIGHT, 1000).
//  2. publish latency (send -> receipt) p50 / p99 at BENCH_PULSAR_RATE (1,000) msg/s, both
//     with batching off: pulsar-perf's aggregated latency beside mqbench's publish latency.
//
// One producer each, persistent topics, BENCH_PULSAR_SECONDS (15) per run,
// BENCH_PULSAR_REPEATS (1) interleaved pairs. Starts Pulsar if needed and stops it (removing
// its data) only if this section started it.
func Pulsar(e *Env) error {
	var secs, repeats, inflight, rate int
	if err := e.PositiveInts(IntSetting{&secs, "BENCH_PULSAR_SECONDS", 15}, IntSetting{&repeats, "BENCH_PULSAR_REPEATS", 1},
		IntSetting{&inflight, "BENCH_PULSAR_INFLIGHT", 1000}, IntSetting{&rate, "BENCH_PULSAR_RATE", 1000}); err != nil {
		return err
	}
	url := "pulsar://127.0.0.1:" + e.Setting("PULSAR_PORT", "6750")
	stamp := time.Now().Format("150405")
	if err := e.BrokerUp("pulsar"); err != nil {
		return err
	}
	defer func() { _ = e.BrokerDown("pulsar") }()
	// perf runs pulsar-perf produce (the recipe's pulsar_perf, on the broker's jars).
	perf := func(log string, args ...string) (string, error) {
		out, err := exec.Command("bash", append([]string{"-c", `source "$1/scripts/brokers/lib.sh" && shift && pulsar_perf produce "$@"`, "bash", e.Repo}, args...)...).CombinedOutput()
		_ = os.WriteFile(log, out, 0o644)
		if err != nil {
			return "", fmt.Errorf("pulsar-perf failed (%v); end of %s: %s", err, log, childrun.LastLines(string(out), 20))
		}
		return string(out), nil
	}
	ppMax := func(i int) (float64, error) {
		log := filepath.Join(e.Dir, fmt.Sprintf("pulsar-perf-max-%d.log", i))
		out, err := perf(log, "-r", "100000000", "-s", "1024", "-time", strconv.Itoa(secs), "-o", strconv.Itoa(inflight), "-bm", "100", "-bb", "131072", "-b", "1",
			fmt.Sprintf("persistent://public/default/mqbench-bench-pp-%s-%d", stamp, i))
		if err != nil {
			return 0, err
		}
		v, ok := pulsarPerfField(out, `--- ([0-9.]+) msg/s`, "Aggregated throughput")
		if !ok || v == 0 {
			return 0, fmt.Errorf("no aggregated msg/s in %s", log)
		}
		return mathRound(v), nil
	}
	mqMax := func(i int) (float64, string, error) {
		name := fmt.Sprintf("pulsar-max-%d", i)
		f, err := e.ClosedLoop(name, fmt.Sprintf("1KB, rate max, inflight %d, no consumer", inflight), `{ type: pulsar, url: "`+url+`", pulsar: { batching: true } }`,
			childrun.Workload{Destination: "mqbench-bench-" + name + "-" + stamp, Duration: time.Duration(secs) * time.Second, Drain: 5 * time.Second, Producers: 1, Consumers: 0},
			childrun.Cell{Size: "1KB", Inflight: inflight}, closedLoopFigures...)
		if err != nil {
			return 0, "", err
		}
		r := closedLoopRow(f, false)
		return r.sent, r.problems, nil
	}
	e.Printf("== Pulsar 4.0.7 standalone, 1 KB, persistent topics: mqbench (k6, pulsar-client-go) vs pulsar-perf 4.0.6, %s, %d cores, 1 producer each, %d s per run, %d interleaved pair(s)\n", url, Cores(), secs, repeats)

	// 1. producer only, closed loop
	e.Printf("\n%-4s %-13s %-34s %s\n", "run", "first", "mqbench consumers 0: sent/s (problems)", "pulsar-perf produce: msg/s")
	var k1, p1 []float64
	for i := 1; i <= repeats; i++ {
		var ks, p float64
		var kp string
		err := interleave(i, func() (err error) { ks, kp, err = mqMax(i); return err }, func() (err error) { p, err = ppMax(i); return err })
		if err != nil {
			return err
		}
		k1, p1 = append(k1, ks), append(p1, p)
		e.Printf("%-4d %-13s %-34s %.0f\n", i, map[bool]string{true: "mqbench", false: "pulsar-perf"}[i%2 == 1], fmt.Sprintf("%.0f (%s)", ks, kp), p)
	}

	// 2. publish latency at a fixed rate, batching off (each message its own send and receipt)
	log := filepath.Join(e.Dir, "pulsar-perf-lat.log")
	out, err := perf(log, "-r", strconv.Itoa(rate), "-s", "1024", "-time", strconv.Itoa(secs), "-db", "persistent://public/default/mqbench-bench-pp-"+stamp+"-lat")
	if err != nil {
		return err
	}
	pp50, ok50 := pulsarPerfField(out, `med: *([0-9.]+)`, "Aggregated")
	pp99, ok99 := pulsarPerfField(out, `99pct: *([0-9.]+)`, "Aggregated")
	if !ok50 || !ok99 {
		return fmt.Errorf("no med: or 99pct: in pulsar-perf's aggregated lines of %s", log)
	}
	l50, l99, lok, err := e.Latency(fmt.Sprintf("pulsar-latency-%d", rate), `{ type: pulsar, url: "`+url+`", pulsar: { batching: false } }`, rate, 1, time.Duration(secs)*time.Second)
	if err != nil {
		return err
	}
	t := e.Table([3]int{48, 16, 16}, "pulsar-perf")
	a, b := t.Medians("producer only, msg/s", k1, p1)
	b50, b99 := mathRound(pp50*1000), mathRound(pp99*1000)
	t.Row(fmt.Sprintf("publish p50 at %d msg/s, us (mqbench: %s)", rate, lok), fmt.Sprintf("%.0f", mathRound(l50)), fmt.Sprintf("%.0f", b50), Ratio(l50, b50)+"x")
	t.Row(fmt.Sprintf("publish p99 at %d msg/s, us", rate), fmt.Sprintf("%.0f", mathRound(l99)), fmt.Sprintf("%.0f", b99), Ratio(l99, b99)+"x")
	e.Printf(`Closed loops (row 1): medians over %d run(s) of %d s. Both producers keep up to
%d messages unanswered and batch at most 100 messages / 1 ms; pulsar-perf's topic has
no subscription (the broker keeps nothing for a reader), mqbench's has the run's subscription
with no consumer attached (producer-only: the messages are kept as backlog), so the broker
does a little more for mqbench. Row 2: batching off on both sides, 1 producer; mqbench also
runs its consumer (pulsar-perf produce does not consume); pulsar-perf reports milliseconds
(HdrHistogram), shown here in microseconds.
(k6 logs and summaries, pulsar-perf output: %s)
`, repeats, secs, inflight, e.Dir)
	return e.Headline("pulsar", "producer only, msg/s (pulsar-perf)", fmt.Sprintf("%.0f", a), fmt.Sprintf("%.0f pulsar-perf", b), Ratio(a, b)+"x")
}

// pulsarPerfField is the number pattern (one group) catches in the last of pulsar-perf's
// lines containing marker ("Aggregated throughput stats --- N records sent --- X msg/s …",
// "Aggregated latency stats --- Latency: mean: M ms - med: X - 95pct: … - 99pct: Y …").
func pulsarPerfField(out, pattern, marker string) (float64, bool) {
	re := regexp.MustCompile(pattern)
	v, ok := 0.0, false
	for _, l := range regexp.MustCompile(`(?m)^.*`+regexp.QuoteMeta(marker)+`.*$`).FindAllString(out, -1) {
		if g := re.FindStringSubmatch(l); g != nil {
			v, _ = strconv.ParseFloat(g[1], 64)
			ok = true
		}
	}
	return v, ok
}
