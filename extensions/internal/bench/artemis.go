package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
	"github.com/mqbench/xk6-mqbench/internal/driver/amqp10drv"
	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// Artemis: ActiveMQ Artemis over AMQP 1.0, 1 KB durable messages, unsettled sends (publish
// latency ends at the broker's disposition), one producer and one consumer: mqbench (bin/k6,
// its amqp10 driver on go-amqp, address plain) beside Artemis's own `artemis perf client
// --protocol AMQP` (qpid-jms, shipped in the pinned Artemis distribution), same broker, same
// session, interleaved so both see the same machine noise.
//  1. at 1,000 msg/s, 10 s measured after a warm-up: publish latency (send -> disposition)
//     p50 / p99 and end-to-end (perf client: "transfer time") p50 / p99
//  2. the highest rate held over BENCH_DURATION (60s), by two rules, each applied to both
//     tools (each stops at its first failure): on schedule (mqbench: no dropped iteration,
//     nothing lost, everything received; perf client: never more than LateMax behind its
//     schedule, every message completed and received: a generator without a VU pool cannot
//     drop a tick, it falls behind and then sends faster) and on average (mean sent,
//     acknowledged and received rates >= 98 % of the target, everything received).
//
// BENCH_RATES overrides the ladder; BENCH_ARTEMIS_SEND_QUEUE (8192) is mqbench's send_queue.
// Starts Artemis if needed and stops it at the end only if this section started it.
func Artemis(e *Env) error {
	duration, err := e.Seconds("BENCH_DURATION", "60s")
	if err != nil {
		return err
	}
	rates, err := e.Ints("BENCH_RATES", []int{2000, 5000, 7500, 10000, 12500, 15000})
	if err != nil {
		return err
	}
	sendQueue := e.Setting("BENCH_ARTEMIS_SEND_QUEUE", "8192")
	r, err := artemisRecipe(e.Repo)
	if err != nil {
		return err
	}
	pc := perfClient{r: r, dir: e.Dir, prefix: "mqbench-artemis-pc-" + time.Now().Format("150405")}
	const credit = 256 // consumer link credit, both tools (perf client: qpid-jms prefetch)
	broker := fmt.Sprintf(`{ type: amqp10, url: "amqp://%s:%s@%s", amqp10: { address: plain, settle: unsettled, durable: true, credit: %d, send_queue: %s } }`,
		r["ARTEMIS_USER"], r["ARTEMIS_PASSWORD"], r.addr(), credit, sendQueue)
	if err := e.BrokerUp("artemis"); err != nil {
		return err
	}
	defer func() {
		if !e.Started("artemis") { // our queues, and any a crashed earlier run left
			pc.deleteQueues()
		}
		_ = e.BrokerDown("artemis")
	}()
	goAMQP := ""
	if b, err := os.ReadFile(filepath.Join(e.Repo, "extensions", "go.mod")); err == nil {
		if g := regexp.MustCompile(`(?m)^\s*(?:require\s+)?github\.com/Azure/go-amqp (\S+)`).FindSubmatch(b); g != nil {
			goAMQP = string(g[1])
		}
	}
	jms, _ := filepath.Glob(filepath.Join(r["ARTEMIS_HOME"], "lib", "qpid-jms-client-*.jar"))
	jmsVersion := ""
	if len(jms) > 0 {
		jmsVersion = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(jms[0]), "qpid-jms-client-"), ".jar")
	}
	e.Printf("== ActiveMQ Artemis %s, AMQP 1.0, 1 KB, durable, unsettled sends, 1 producer + 1 consumer: mqbench (k6, go-amqp %s) vs artemis perf client (qpid-jms %s), %s, %d cores\n",
		r["ARTEMIS_VERSION"], goAMQP, jmsVersion, r.addr(), Cores())

	// 0. warm the broker: a JVM started seconds ago answers several times slower than a warm
	// one, and whichever tool measured first would pay for it. Neither tool's figures are kept.
	if _, err := pc.run(2000, 5, pc.prefix+"-warmup"); err != nil {
		return fmt.Errorf("the perf client warm-up run: %v", err)
	}
	if _, err := e.FixedRate("artemis-warmup", broker, 2000, 10*time.Second); err != nil {
		return err
	}
	// 1. publish and end-to-end latency at 1,000 msg/s, 10 s after the warm-up
	k, err := e.FixedRate("artemis-latency-1000", broker, 1000, 10*time.Second, "publish_p50_us", "publish_p99_us", "e2e_p50_us", "e2e_p99_us")
	if err != nil {
		return err
	}
	p, err := pc.run(1000, 10, pc.prefix+"-latency")
	if err != nil {
		return fmt.Errorf("the perf client latency run: %v", err)
	}
	// 2. the ladder, one rate at a time for both (batch: rate / 2000, as the nats section)
	e.Printf("\n%-8s %-6s %-50s %s\n", "rate", "batch", "mqbench: sent/s recv/s dropped lost late-max", "perf client: sent/s completed/s recv/s late-max")
	rung, err := Step("artemis-rate", broker, "1KB", duration)
	if err != nil {
		return err
	}
	mq := &ladder.Mqbench{Step: rung, K6: e.K6, Dir: e.Dir, Judge: []string{"held", "average"}, Columns: []string{"sent/s", "recv/s", "dropped", "lost", "late-max0", "errors"}}
	secs := int(duration.Seconds())
	best, err := e.Ladder(rates, 2000, []ladder.Probe{mq, pcProbe{pc, secs}}, "%-8s %-6s %-50s %s")
	if err != nil {
		return err
	}
	ks, km, ps, pm := best[0], best[1], best[2], best[3]

	e.Printf("\n%-46s %16s %16s %8s\n", "", "mqbench (k6)", "perf client", "ratio")
	row := func(what string, a, b float64) { e.Printf("%-46s %14.0fus %14.0fus %7sx\n", what, a, b, Ratio(a, b)) }
	row("publish->disposition p50 at 1,000 msg/s", k[0], p.send50)
	row("publish->disposition p99 at 1,000 msg/s", k[1], p.send99)
	row("end-to-end p50 at 1,000 msg/s", k[2], p.transfer50)
	row("end-to-end p99 at 1,000 msg/s", k[3], p.transfer99)
	held := func(b ladder.Best) string { return fmt.Sprintf("%d (%s)", b.Rate, batchLabel(b)) }
	e.Printf("%-46s %16s %16d %8s\n", fmt.Sprintf("highest rate held %d s on schedule (batch)", secs), held(ks), ps.Rate, Ratio(float64(ks.Rate), float64(ps.Rate))+"x")
	e.Printf("%-46s %16s %16d %8s\n", fmt.Sprintf("highest rate held %d s on average (batch)", secs), held(km), pm.Rate, Ratio(float64(km.Rate), float64(pm.Rate))+"x")
	if secs < 60 {
		e.Printf("note: %d s windows are shorter than the project's 60 s rule for \"held\" (BENCH_DURATION)\n", secs)
	}
	e.Printf(`Publish latency = send -> the broker's disposition (accepted) of an unsettled transfer, per
message; end-to-end = send -> receipt by the consumer (the perf client's "transfer time").
Artemis writes a durable message to its journal before it settles or delivers it, so both
figures carry the journal write. Both tools run 1 producer + 1 consumer connection in one
process (k6 / the perf client's JVM) beside the broker's JVM on %d cores; at most
%d unsettled sends per producer, consumer credit (prefetch) %d, one accept per
message. The perf client keeps HdrHistograms at 2 significant digits (about 1 %%); its clock
starts at its own send call, not at the schedule. Held on schedule: mqbench dropped no tick
(k6 drops a tick when every VU of its pool, ~50 ms of ticks, is busy) and lost nothing; the
perf client was never more than 100 ms behind its schedule (late-max; mqbench's late-max is
its schedule lag) and every message was completed and received. Held on average: mean
sent, acknowledged and received rates >= 98 %% of the target and everything received, for
both (a generator that falls behind and catches up passes). Windows: %d s measured,
after a 2 s warm-up (mqbench) or %d s (perf client, a new JVM each run);
rate ladder %s msg/s, each rule stops at its first rate not held (holding the top
rate means "at least").
mqbench's send_queue: %s (0: each send writes its transfer before it returns).
(k6 logs and summaries, perf client output and JSON: %s)
`, Cores(), amqp10drv.MaxInFlight, credit, secs, pcWarmup, joinInts(rates), sendQueue, e.Dir)
	return e.Headline("artemis", fmt.Sprintf("highest rate held %d s on schedule, msg/s (artemis perf client)", secs), strconv.Itoa(ks.Rate),
		fmt.Sprintf("%d perf client", ps.Rate), Ratio(float64(ks.Rate), float64(ps.Rate))+"x")
}

// pcWarmup is the perf client's warm-up, s: a fresh JVM each run, whose first seconds are
// interpreted code (up to 2.7 s behind schedule after 8 s at 7,500 msg/s, measured).
const pcWarmup = 10

// recipe is the Artemis broker recipe's own values (scripts/brokers/lib.sh and artemis.sh:
// ARTEMIS_HOME, ARTEMIS_VERSION, HOST, the ports, the test-only user).
type recipe map[string]string

func (r recipe) addr() string { return r["HOST"] + ":" + r["ARTEMIS_PORT"] }

// artemisRecipe reads the recipe's values from the shell that defines them.
func artemisRecipe(repo string) (recipe, error) {
	names := []string{"ARTEMIS_HOME", "ARTEMIS_VERSION", "HOST", "ARTEMIS_PORT", "ARTEMIS_CORE_PORT", "ARTEMIS_USER", "ARTEMIS_PASSWORD"}
	script := `source "$1/scripts/brokers/lib.sh" >/dev/null 2>&1; shift; for n; do printf '%s\n' "${!n}"; done`
	out, err := exec.Command("bash", append([]string{"-c", script, "bash", repo}, names...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("the Artemis recipe's values: %v", err)
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(vals) != len(names) {
		return nil, fmt.Errorf("the Artemis recipe's values: got %d lines for %d names", len(vals), len(names))
	}
	r := recipe{}
	for i, n := range names {
		r[n] = vals[i]
	}
	return r, nil
}

// perfClient runs `artemis perf client --protocol AMQP` against the recipe's broker.
type perfClient struct {
	r           recipe
	dir, prefix string
}

// pcRun is the perf client's report: over its per-second samples after the warm-up while the
// producer ran (the last, partial second and the drain left out), the mean sent, completed and
// received msg/s and the most it fell behind its schedule (µs); whether its totals of sent,
// completed and received are equal (and the totals); its send and transfer p50 / p99 (µs).
type pcRun struct {
	sent, completed, received, lateMax     float64
	complete                               bool
	totalSent, totalCompleted, totalRecvd  int64
	send50, send99, transfer50, transfer99 float64
}

var errPCTimeout = errors.New("timed out draining its backlog")

// run runs the perf client at rate for secs (after its warm-up) on queue: one producer and
// one consumer connection, persistent messages sent unsettled with a completion listener, at
// most amqp10drv.MaxInFlight unsettled, consumer prefetch 256, auto-acknowledge. Its console
// output goes to Dir/QUEUE.log, its report to Dir/QUEUE.json. errPCTimeout when it had not
// finished secs + 3 min after its start (it waits until its consumer received every message).
func (p perfClient) run(rate, secs int, queue string) (pcRun, error) {
	log, report := filepath.Join(p.dir, queue+".log"), filepath.Join(p.dir, queue+".json")
	_ = os.Remove(report)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(secs+pcWarmup+180)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(p.r["ARTEMIS_HOME"], "bin", "artemis"), "perf", "client", "--protocol", "AMQP",
		"--url", "amqp://"+p.r.addr()+"?jms.prefetchPolicy.all=256", "--user", p.r["ARTEMIS_USER"], "--password", p.r["ARTEMIS_PASSWORD"],
		"--producers", "1", "--consumers", "1", "--threads", "1", "--persistent", "--message-size", "1024", "--rate", strconv.Itoa(rate),
		"--max-pending", strconv.Itoa(amqp10drv.MaxInFlight), "--duration", strconv.Itoa(secs+pcWarmup), "--warmup", strconv.Itoa(pcWarmup),
		"--json", report, "queue://"+queue)
	cmd.WaitDelay = 15 * time.Second
	out, err := cmd.CombinedOutput() // no stdin: the CLI would prompt when anything is missing
	_ = os.WriteFile(log, out, 0o644)
	if ctx.Err() != nil {
		return pcRun{}, errPCTimeout
	}
	b, rerr := os.ReadFile(report)
	var r pcRun
	if rerr == nil {
		r, rerr = parsePC(b)
	}
	if err != nil || rerr != nil {
		return pcRun{}, fmt.Errorf("artemis perf client failed at %d msg/s (%v %v); end of %s: %s", rate, err, rerr, log, childrun.LastLines(string(out), 20))
	}
	return r, nil
}

// parsePC reads the perf client's JSON report (a failed run's result is an error).
func parsePC(b []byte) (pcRun, error) {
	type hist map[string]any
	var samples []struct {
		SampleType        string `json:"sampleType"`
		Warmup            bool   `json:"warmup"`
		Sent              float64
		Completed         float64
		Received          float64
		DelaySendTime     hist   `json:"delaySendTime"`
		Result            string `json:"result"`
		TotalSent         int64  `json:"totalSent"`
		TotalCompleted    int64  `json:"totalCompleted"`
		TotalReceived     int64  `json:"totalReceived"`
		TotalSendTime     hist   `json:"totalSendTime"`
		TotalTransferTime hist   `json:"totalTransferTime"`
	}
	if err := json.Unmarshal(b, &samples); err != nil {
		return pcRun{}, err
	}
	num := func(h hist, k string) float64 {
		switch v := h[k].(type) {
		case float64:
			return v
		case string:
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
		return 0
	}
	var r pcRun
	var intervals []int
	found := false
	for i, s := range samples {
		switch {
		case s.SampleType == "summary" && !found:
			found = true
			if s.Result != "success" {
				return pcRun{}, fmt.Errorf("its result: %s", s.Result)
			}
			r.totalSent, r.totalCompleted, r.totalRecvd = s.TotalSent, s.TotalCompleted, s.TotalReceived
			r.complete = s.TotalReceived == s.TotalSent && s.TotalSent == s.TotalCompleted
			r.send50, r.send99 = num(s.TotalSendTime, "50"), num(s.TotalSendTime, "99")
			r.transfer50, r.transfer99 = num(s.TotalTransferTime, "50"), num(s.TotalTransferTime, "99")
		case s.SampleType == "interval" && !s.Warmup:
			intervals = append(intervals, i)
		}
	}
	if !found {
		return pcRun{}, fmt.Errorf("no summary in the perf client's report")
	}
	for len(intervals) > 0 && samples[intervals[len(intervals)-1]].Sent == 0 { // the drain
		intervals = intervals[:len(intervals)-1]
	}
	if len(intervals) > 0 {
		intervals = intervals[:len(intervals)-1] // the last, partial second
	}
	if len(intervals) == 0 {
		return pcRun{}, fmt.Errorf("no perf client samples after the warm-up")
	}
	for _, i := range intervals {
		s := samples[i]
		r.sent += s.Sent
		r.completed += s.Completed
		r.received += s.Received
		r.lateMax = max(r.lateMax, num(s.DelaySendTime, "max"))
	}
	n := float64(len(intervals))
	r.sent, r.completed, r.received = r.sent/n, r.completed/n, r.received/n
	return r, nil
}

// deleteQueues removes this section's queues still there: Artemis (as the scripts configure
// it) auto-deletes an empty auto-created queue without consumers only at its next scan (30 s),
// and never one a failed run left messages in.
func (p perfClient) deleteQueues() {
	cli := filepath.Join(p.r["ARTEMIS_HOME"], "bin", "artemis")
	core := []string{"--url", "tcp://" + p.r["HOST"] + ":" + p.r["ARTEMIS_CORE_PORT"], "--user", p.r["ARTEMIS_USER"], "--password", p.r["ARTEMIS_PASSWORD"]}
	re := regexp.MustCompile(`^(mqbench-artemis-pc-|mqbench\.bench\.artemis-)`)
	queues := func() ([]string, error) {
		out, err := exec.Command(cli, append([]string{"queue", "stat"}, append(core, "--json", "--queueName", "mqbench", "--maxRows", "10000")...)...).Output()
		if err != nil {
			return nil, err
		}
		var stat struct {
			Data []struct{ Name string } `json:"data"`
		}
		if i := strings.IndexByte(string(out), '{'); i < 0 || json.Unmarshal(out[i:], &stat) != nil {
			return nil, fmt.Errorf("queue stat: no JSON")
		}
		var qs []string
		for _, d := range stat.Data {
			if re.MatchString(d.Name) {
				qs = append(qs, d.Name)
			}
		}
		return qs, nil
	}
	qs, _ := queues()
	for _, q := range qs { // a queue auto-deleted meanwhile fails here: checked below
		_ = exec.Command(cli, append([]string{"queue", "delete"}, append(core, "--name", q, "--removeConsumers", "--autoDeleteAddress")...)...).Run()
	}
	if left, err := queues(); err != nil || len(left) > 0 {
		fmt.Fprintf(os.Stderr, "warning: queues left on Artemis: %v %v\n", left, err)
	}
}

// pcProbe is the perf client as the ladder's peer, judged by both rules: on schedule
// (everything in, never over LateMax late) and on average (everything in, each mean rate >=
// 98 % of the target).
type pcProbe struct {
	pc   perfClient
	secs int
}

func (p pcProbe) Rules() int { return 2 }

func (p pcProbe) Measure(rate, _ int, on []bool) ([]bool, string, error) {
	r, err := p.pc.run(rate, p.secs, p.pc.prefix+"-rate-"+strconv.Itoa(rate))
	if errors.Is(err, errPCTimeout) {
		return []bool{false, false}, "timed out draining its backlog", nil
	}
	if err != nil {
		return nil, "", err
	}
	least := min(r.sent, r.completed, r.received)
	s := on[0] && r.complete && r.lateMax <= float64(LateMax.Microseconds())
	m := on[1] && r.complete && least >= 0.98*float64(rate)
	line := fmt.Sprintf("%.0f %.0f %.0f %.0fms", r.sent, r.completed, r.received, r.lateMax/1e3)
	if !r.complete {
		line += fmt.Sprintf(" sent %d completed %d received %d", r.totalSent, r.totalCompleted, r.totalRecvd)
	}
	if !s && m {
		line += "  (held on average only)"
	}
	return []bool{s, m}, line, nil
}

var _ ladder.Probe = pcProbe{}
