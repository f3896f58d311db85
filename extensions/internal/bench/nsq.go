package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
)

// NSQ: 1 KB messages, one nsqd: mqbench (bin/k6, go-nsq) beside nsq's own bench_writer and
// bench_reader (built by scripts/brokers/nsq.sh), same broker, same session, interleaved
// (first tool alternating) so both see the same machine noise.
//  1. throughput, producer only: bench_writer (--runfor, --size 1024) vs mqbench rate: max
//     with consumers: 0 (closed loop, inflight BENCH_NSQ_INFLIGHT, 1000), msg/s. bench_writer
//     only writes, so mqbench does too: a consumer in the same k6 process would take CPU the
//     writer does not pay for on these cores. Both topics have one channel and no consumer,
//     so nsqd does the same work per message (topic -> channel, memory queue then disk).
//  2. throughput, writer + reader at once: bench_writer and bench_reader (--rdy 2500) side by
//     side vs mqbench rate: max with 1 consumer (max_in_flight 2500), sent and received msg/s.
//  3. publish latency (PUB -> OK) p50 / p99 at 1,000 msg/s, mqbench only (bench_writer
//     reports no latency).
//
// Parts 1 and 2 run mqbench twice: one PUB per message, and MPUB batches like bench_writer's
// (publish_batch BENCH_NSQ_BATCH, 200: its --batch-size); the headline is producer only,
// MPUB. Connections: BENCH_NSQ_CONNS (1) for each tool (bench_writer/bench_reader open
// GOMAXPROCS connections, so they run with GOMAXPROCS set to it, and k6 with as many as the
// native processes beside it have together; the producer-only MPUB row runs once more with
// Go's default, shown beside). BENCH_NSQ_SECONDS (10) per
// run, BENCH_NSQ_REPEATS (1) interleaved pairs. Starts nsqd if needed and stops it (removing
// its data) only if this section started it; otherwise deletes the topics its runs created.
func NSQ(e *Env) error {
	var secs, repeats, conns, inflight, batch int
	if err := e.PositiveInts(IntSetting{&secs, "BENCH_NSQ_SECONDS", 10}, IntSetting{&repeats, "BENCH_NSQ_REPEATS", 1}, IntSetting{&conns, "BENCH_NSQ_CONNS", 1},
		IntSetting{&inflight, "BENCH_NSQ_INFLIGHT", 1000}, IntSetting{&batch, "BENCH_NSQ_BATCH", 200}); err != nil {
		return err
	}
	const rdy = 2500 // bench_reader's default RDY; mqbench's max_in_flight in part 2
	n := nsqTools{e: e, addr: "127.0.0.1:" + e.Setting("NSQ_PORT", "4250"), api: "http://127.0.0.1:" + e.Setting("NSQ_HTTP_PORT", "4251"),
		bin: filepath.Join(e.Repo, ".cache", "brokers", "bin"), secs: secs, conns: conns, prefix: "mqbench-bw-" + time.Now().Format("150405")}
	if err := e.BrokerUp("nsq"); err != nil {
		return err
	}
	defer func() {
		if !e.Started("nsq") { // what an interrupted run of ours may have left
			n.tidy(`^(` + regexp.QuoteMeta(n.prefix) + `-|mqbench\.bench\.nsq-)`)
		}
		_ = e.BrokerDown("nsq")
	}()
	for _, t := range []string{"bench_writer", "bench_reader"} {
		if _, err := os.Stat(filepath.Join(n.bin, t)); err != nil {
			return fmt.Errorf("%s missing (scripts/brokers/start.sh nsq builds it)", filepath.Join(n.bin, t))
		}
	}
	version, _ := exec.Command(filepath.Join(n.bin, "nsqd"), "--version").Output()
	v := strings.Fields(string(version))
	e.Printf("== NSQ %s, 1 KB: mqbench (k6, go-nsq, PUB) vs bench_writer / bench_reader (nsq's own, MPUB batches of 200), %s, %d cores, %d connection(s) per tool, %d s per run, %d interleaved pair(s)\n",
		strings.Join(v[min(1, len(v)):min(2, len(v))], ""), n.addr, Cores(), conns, secs, repeats)
	// k6 runs with as many Go processors as the native tools together (GOMAXPROCS: conns per
	// tool process), and the producer-only MPUB row once more with Go's default, to show it
	mq := func(name string, consumers, procs int, opts string) (nsqRow, error) {
		return n.mqbench(name, consumers, procs, opts, inflight)
	}
	mpub := "publish_batch: " + strconv.Itoa(batch)

	// 1. producer only
	e.Printf("\n%-4s %-13s %-36s %-36s %-28s %s\n", "run", "first", "mqbench PUB: sent/s (p50 us, problems)", fmt.Sprintf("mqbench MPUB %d: sent/s (p50 us, ...)", batch),
		"MPUB, Go's default procs", "bench_writer: msg/s")
	var k1, m1, d1, b1 []float64
	for i := 1; i <= repeats; i++ {
		var k, m, d nsqRow
		var b [2]float64
		err := interleave(i, func() (err error) {
			if k, err = mq(fmt.Sprintf("nsq-max-w-%d", i), 0, conns, ""); err == nil {
				if m, err = mq(fmt.Sprintf("nsq-max-wb-%d", i), 0, conns, mpub); err == nil {
					d, err = mq(fmt.Sprintf("nsq-max-wbd-%d", i), 0, 0, mpub)
				}
			}
			return err
		}, func() (err error) { b, err = n.writer(fmt.Sprintf("%s-w-%d", n.prefix, i), false); return err })
		if err != nil {
			return err
		}
		k1, m1, d1, b1 = append(k1, k.sent), append(m1, m.sent), append(d1, d.sent), append(b1, b[0])
		e.Printf("%-4d %-13s %-36s %-36s %-28s %.0f\n", i, firstOf(i), fmt.Sprintf("%.0f (%.0f, %s)", k.sent, k.p50, k.problems), fmt.Sprintf("%.0f (%.0f, %s)", m.sent, m.p50, m.problems),
			fmt.Sprintf("%.0f (%s)", d.sent, d.problems), b[0])
	}

	// 2. writer and reader at once
	e.Printf("\n%-4s %-13s %-36s %-36s %s\n", "run", "first", "mqbench PUB: sent/s recv/s (problems)", fmt.Sprintf("mqbench MPUB %d: sent/s recv/s (...)", batch), "bench_writer + bench_reader: written/s read/s")
	var k2s, k2r, m2s, m2r, b2w, b2r []float64
	for i := 1; i <= repeats; i++ {
		var k, m nsqRow
		var b [2]float64
		err := interleave(i, func() (err error) {
			if k, err = mq(fmt.Sprintf("nsq-max-wr-%d", i), 1, 2*conns, "max_in_flight: "+strconv.Itoa(rdy)); err == nil {
				m, err = mq(fmt.Sprintf("nsq-max-wrb-%d", i), 1, 2*conns, "max_in_flight: "+strconv.Itoa(rdy)+", "+mpub)
			}
			return err
		}, func() (err error) { b, err = n.writer(fmt.Sprintf("%s-wr-%d", n.prefix, i), true); return err })
		if err != nil {
			return err
		}
		k2s, k2r, m2s, m2r, b2w, b2r = append(k2s, k.sent), append(k2r, k.received), append(m2s, m.sent), append(m2r, m.received), append(b2w, b[0]), append(b2r, b[1])
		e.Printf("%-4d %-13s %-36s %-36s %.0f %.0f\n", i, firstOf(i), fmt.Sprintf("%.0f %.0f (%s)", k.sent, k.received, k.problems), fmt.Sprintf("%.0f %.0f (%s)", m.sent, m.received, m.problems), b[0], b[1])
	}

	// 3. publish latency at 1,000 msg/s (2 s warm-up, 1 producer, 1 consumer)
	l50, l99, verdict, err := e.Latency("nsq-latency-1000", `{ type: nsq, url: "nsq://`+n.addr+`" }`, 1000, 1, time.Duration(secs)*time.Second)
	if err != nil {
		return err
	}
	t := e.Table([3]int{52, 16, 16}, "native")
	t.Medians("producer only, PUB, msg/s (bench_writer)", k1, b1)
	ha, hb := t.Medians(fmt.Sprintf("producer only, MPUB %d, msg/s (bench_writer)", batch), m1, b1)
	t.Medians(fmt.Sprintf("the same, k6 with Go's default procs (%d), msg/s", runtime.NumCPU()), d1, b1)
	t.Medians("writer + reader, PUB, sent msg/s (bench_writer)", k2s, b2w)
	t.Medians("writer + reader, PUB, received msg/s (bench_reader)", k2r, b2r)
	t.Medians("writer + reader, MPUB, sent msg/s (bench_writer)", m2s, b2w)
	t.Medians("writer + reader, MPUB, received msg/s (bench_reader)", m2r, b2r)
	t.Row("publish p50 at 1,000 msg/s, us ("+verdict+")", fmt.Sprintf("%.0f", l50), "-", "")
	t.Row("publish p99 at 1,000 msg/s, us", fmt.Sprintf("%.0f", l99), "-", "")
	e.Printf(`Closed loops, medians over %d run(s) of %d s, each counting from its first send.
bench_writer sends MPUB batches of 200 messages and waits for each batch's OK (200 in
flight per connection, one OK per 200 messages). mqbench's PUB rows send one PUB per
message, up to %d unanswered per connection (per-message publishing against
batched); its MPUB rows send what waits as MPUB batches of up to %d (publish_batch),
several batches unanswered, each message timed from its send to its batch's OK. bench_reader FINishes each message
and flushes once 75 %% of its RDY (%d) is pending; mqbench's consumer (max_in_flight
%d) FINishes each message after measuring it, in the same k6 process as its producer.
Both tools use %d connection(s) each way, nsqd's default output buffer (16 KiB / 250 ms)
and run on the %d cores nsqd uses, each with as many Go processors (GOMAXPROCS) as
connections (bench_writer and bench_reader open one per processor; k6 gets the sum of
both tools' for writer + reader). The row with Go's default (one per core) shows what that
costs: k6 then takes more CPU per message from the cores nsqd's one disk-queue writer needs.
bench_writer and bench_reader report no latency: the latency rows are mqbench's alone
(PUB -> OK, 1 producer + 1 consumer, %d s after a 2 s warm-up).
(k6 logs and summaries, bench_writer/bench_reader output: %s)
`, repeats, secs, inflight, batch, rdy, rdy, conns, Cores(), secs, e.Dir)
	return e.Headline("nsq", fmt.Sprintf("producer only, msg/s, MPUB %d (bench_writer)", batch), fmt.Sprintf("%.0f", ha), fmt.Sprintf("%.0f bench_writer", hb), Ratio(ha, hb)+"x")
}

// interleave runs mqbench's part and the native tool's of pair i, mqbench first in odd pairs.
func interleave(i int, mqbench, native func() error) error {
	first, second := mqbench, native
	if i%2 == 0 {
		first, second = native, mqbench
	}
	if err := first(); err != nil {
		return err
	}
	return second()
}

// firstOf names the tool that ran first in pair i.
func firstOf(i int) string {
	if i%2 == 0 {
		return "bench_writer"
	}
	return "mqbench"
}

// mathRound rounds half away from zero, as the tables print a median.
func mathRound(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', 0, 64), 64)
	return f
}

// nsqTools runs nsq's own bench_writer and bench_reader, and mqbench's closed loops, on nsqd.
type nsqTools struct {
	e              *Env
	addr, api, bin string
	prefix         string
	secs, conns    int
}

// nsqRow is a closed-loop run: sent and received msg/s, publish p50 (µs) and what went wrong.
type nsqRow struct {
	sent, received, p50 float64
	problems            string
}

// mqbench is a rate: max run of secs (no warm-up, as bench_writer) on mqbench.bench.NAME.
func (n nsqTools) mqbench(name string, consumers, procs int, opts string, inflight int) (nsqRow, error) {
	f, err := n.e.ClosedLoopProcs(procs, name, fmt.Sprintf("1KB, rate max, inflight %d, %d consumer(s)", inflight, consumers),
		fmt.Sprintf(`{ type: nsq, url: "nsq://%s", nsq: { %s } }`, n.addr, opts),
		childrun.Workload{Duration: time.Duration(n.secs) * time.Second, Drain: 5 * time.Second, Producers: n.conns, Consumers: consumers},
		childrun.Cell{Size: "1KB", Inflight: inflight}, closedLoopFigures...)
	if err != nil {
		return nsqRow{}, err
	}
	return closedLoopRow(f, consumers > 0), nil
}

// closedLoopFigures are what closedLoopRow reads.
var closedLoopFigures = []string{"sender_rate", "receiver_rate", "publish_p50_us", "sent", "received", "lost", "publish_errors"}

// closedLoopRow is a closed loop's row from its closedLoopFigures: received checked against
// sent when it had consumers.
func closedLoopRow(f []float64, consumers bool) nsqRow {
	return nsqRow{mathRound(f[0]), mathRound(f[1]), mathRound(f[2]), problems(f[3], f[4], f[5], f[6], consumers)}
}

// problems is what went wrong in a run, comma-separated, or "-": received short of sent (when
// checked), anything lost, publish errors.
func problems(sent, received, lost, errors float64, checkReceived bool) string {
	var p []string
	if checkReceived && received != sent {
		p = append(p, fmt.Sprintf("received=%.0f/%.0f", received, sent))
	}
	if lost != 0 {
		p = append(p, fmt.Sprintf("lost=%.0f", lost))
	}
	if errors != 0 {
		p = append(p, fmt.Sprintf("errors=%.0f", errors))
	}
	if len(p) == 0 {
		return "-"
	}
	return strings.Join(p, ",")
}

var nsqOps = regexp.MustCompile(` - ([0-9.]+)ops/s - `)

// writer runs bench_writer for secs into topic, created first with the channel "bench" (with
// reader: bench_reader on that channel at the same time), and returns written/s and read/s.
// Output in Dir/TOPIC.{writer,reader}.log; the topic is deleted after.
func (n nsqTools) writer(topic string, reader bool) ([2]float64, error) {
	var out [2]float64
	if err := n.post("/topic/create?topic=" + url.QueryEscape(topic)); err != nil {
		return out, fmt.Errorf("could not create topic %s on %s: %v", topic, n.api, err)
	}
	if err := n.post("/channel/create?topic=" + url.QueryEscape(topic) + "&channel=bench"); err != nil {
		return out, fmt.Errorf("could not create topic %s on %s: %v", topic, n.api, err)
	}
	defer n.deleteTopic(topic)
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(n.secs+60)*time.Second)
	defer cancel()
	tool := func(name string, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, filepath.Join(n.bin, name), append([]string{"--nsqd-tcp-address=" + n.addr, "--topic=" + topic, "--size=1024", "--runfor=" + strconv.Itoa(n.secs) + "s"}, args...)...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(n.conns))
		return cmd
	}
	wlog, rlog := filepath.Join(n.e.Dir, topic+".writer.log"), filepath.Join(n.e.Dir, topic+".reader.log")
	var r *exec.Cmd
	var rbuf strings.Builder
	if reader {
		r = tool("bench_reader", "--channel=bench", "--rdy=2500")
		r.Stdout, r.Stderr = &rbuf, &rbuf
		if err := r.Start(); err != nil {
			return out, err
		}
	}
	wout, werr := tool("bench_writer").CombinedOutput()
	_ = os.WriteFile(wlog, wout, 0o644)
	if r != nil {
		if err := r.Wait(); err != nil && werr == nil {
			werr = err
		}
		_ = os.WriteFile(rlog, []byte(rbuf.String()), 0o644)
	}
	if werr != nil {
		return out, fmt.Errorf("bench_writer/bench_reader failed (%v); see %s %s: %s", werr, wlog, rlog, childrun.LastLines(string(wout), 5))
	}
	var err error
	if out[0], err = opsPerSecond(wlog, string(wout)); err != nil {
		return out, err
	}
	if reader {
		if out[1], err = opsPerSecond(rlog, rbuf.String()); err != nil {
			return out, err
		}
	}
	return out, nil
}

// opsPerSecond is the ops/s of bench_writer's or bench_reader's closing line ("duration:
// 10.0s - 95.1mb/s - 97406.000ops/s - 10.266us/op"), rounded.
func opsPerSecond(log, out string) (float64, error) {
	m := nsqOps.FindAllStringSubmatch(out, -1)
	if m == nil {
		return 0, fmt.Errorf("no ops/s line in %s: %s", log, childrun.LastLines(out, 20))
	}
	v, err := strconv.ParseFloat(m[len(m)-1][1], 64)
	return mathRound(v), err
}

func (n nsqTools) post(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, n.api+path, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", path, resp.Status)
	}
	return nil
}

// deleteTopic deletes topic through nsqd's HTTP API (its channels and messages with it).
func (n nsqTools) deleteTopic(topic string) {
	if err := n.post("/topic/delete?topic=" + url.QueryEscape(topic)); err != nil {
		fmt.Fprintf(os.Stderr, "warning: could not delete topic %s\n", topic)
	}
}

// tidy deletes the topics on nsqd whose names regex matches.
func (n nsqTools) tidy(regex string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, n.api+"/stats?format=json", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	var stats struct {
		Topics []struct {
			Name string `json:"topic_name"`
		} `json:"topics"`
	}
	if json.NewDecoder(resp.Body).Decode(&stats) != nil {
		return
	}
	re := regexp.MustCompile(regex)
	for _, t := range stats.Topics {
		if re.MatchString(t.Name) {
			n.deleteTopic(t.Name)
		}
	}
}
