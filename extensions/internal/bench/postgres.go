package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/childrun"
)

// Postgres: PostgreSQL as a queue, 1 KB messages, one PostgreSQL 15 (scripts/brokers/start.sh
// postgres): mqbench (bin/k6, pgx) beside pgbench running the same statements on the same kind
// of table, same server, same session, interleaved (first tool alternating). Table (both): id
// bigserial primary key, payload bytea (the driver's Setup; no NOTIFY trigger: mqbench's
// consumer polls).
//
//   - enqueue (both): INSERT INTO t (payload) VALUES ($1), autocommit, one row per message, a
//     1 KB payload sent with each execution (pgbench: -M prepared, the payload a -D variable).
//
//   - dequeue (both): BEGIN; DELETE FROM t WHERE id IN (SELECT id FROM t ORDER BY id FOR
//     UPDATE SKIP LOCKED LIMIT 100) RETURNING payload; COMMIT.
//
//     1. producer only: pgbench enqueue on BENCH_PG_CONNS connections vs mqbench rate: max with
//     consumers 0 on as many producer connections, msg/s.
//     2. producer + consumer: the same enqueue plus one dequeuing connection at once vs mqbench
//     rate: max with 1 consumer, msg/s in and out.
//     3. publish latency at BENCH_PG_RATE (500) msg/s, p50 / p99: pgbench -R on the enqueue
//     (per-transaction log) vs mqbench's publish latency (INSERT -> COMMIT).
//     4. producer only, multi-row: both tools INSERT BENCH_PG_BATCH (100) rows per statement,
//     rows/s, after one untimed pgbench run of the same (the server's WAL files). The headline.
//
// BENCH_PG_SECONDS (10) per run, BENCH_PG_REPEATS (1) interleaved pairs, BENCH_PG_CONNS (2).
// Starts the server if needed and stops it (removing its data) only if this section started
// it; otherwise drops the tables its runs created.
func Postgres(e *Env) error {
	var secs, repeats, conns, rate, rows int
	if err := e.PositiveInts(IntSetting{&secs, "BENCH_PG_SECONDS", 10}, IntSetting{&repeats, "BENCH_PG_REPEATS", 1}, IntSetting{&conns, "BENCH_PG_CONNS", 2},
		IntSetting{&rate, "BENCH_PG_RATE", 500}, IntSetting{&rows, "BENCH_PG_BATCH", 100}); err != nil {
		return err
	}
	payload := make([]byte, 1024)
	_, _ = rand.Read(payload)
	pg := pgTools{e: e, port: e.Setting("POSTGRES_PORT", "5532"), bin: "/usr/lib/postgresql/15/bin", secs: secs, conns: conns, rows: rows,
		prefix: "mqbench_pgbench_" + time.Now().Format("150405"), payload: `\x` + hex.EncodeToString(payload)}
	url := "postgres://postgres@127.0.0.1:" + pg.port + "/mqbench"
	if err := e.BrokerUp("postgres"); err != nil {
		return err
	}
	defer func() {
		if !e.Started("postgres") { // what an interrupted run of ours may have left
			out, _ := pg.psql("-tAc", "SELECT tablename FROM pg_tables WHERE tablename LIKE '"+pg.prefix+"_%' OR tablename LIKE 'mqbench.bench.pg-%'")
			for _, t := range strings.Fields(out) {
				pg.drop(t)
			}
		}
		_ = e.BrokerDown("postgres")
	}()
	version, _ := exec.Command(filepath.Join(pg.bin, "postgres"), "--version").Output()
	v := strings.Fields(string(version))
	e.Printf("== PostgreSQL %s as a queue, 1 KB: mqbench (k6, pgx) vs pgbench (same INSERT / DELETE … SKIP LOCKED statements, same table), 127.0.0.1:%s, %d cores, %d enqueuing connection(s) per tool, %d s per run, %d interleaved pair(s)\n",
		strings.Join(v[min(2, len(v)):min(3, len(v))], ""), pg.port, Cores(), conns, secs, repeats)
	mq := func(name string, consumers, per int) (nsqRow, error) {
		window := 1
		if per > 1 {
			window = 2 * per
		}
		f, err := e.ClosedLoop(name, fmt.Sprintf("1KB, rate max, %d producer(s), %d consumer(s)", conns, consumers),
			fmt.Sprintf(`{ type: postgres, url: "%s", postgres: { batch_size: %d, wakeup: poll, publish_batch: %d } }`, url, pgDequeueBatch, per),
			childrun.Workload{Duration: time.Duration(secs) * time.Second, Drain: 5 * time.Second, Producers: conns, Consumers: consumers},
			childrun.Cell{Size: "1KB", Inflight: window}, closedLoopFigures...)
		if err != nil {
			return nsqRow{}, err
		}
		return closedLoopRow(f, consumers > 0), nil
	}
	first := func(i int) string {
		if i%2 == 0 {
			return "pgbench"
		}
		return "mqbench"
	}
	// 1. producer only
	e.Printf("\n%-4s %-9s %-44s %s\n", "run", "first", "mqbench consumers 0: sent/s (p50 us, problems)", "pgbench enqueue: msg/s")
	var k1, b1 []float64
	for i := 1; i <= repeats; i++ {
		var k nsqRow
		var b [2]float64
		if err := interleave(i, func() (err error) { k, err = mq(fmt.Sprintf("pg-max-w-%d", i), 0, 1); return err },
			func() (err error) { b, err = pg.bench(fmt.Sprintf("w_%d", i), ""); return err }); err != nil {
			return err
		}
		k1, b1 = append(k1, k.sent), append(b1, b[0])
		e.Printf("%-4d %-9s %-44s %.0f\n", i, first(i), fmt.Sprintf("%.0f (%.0f, %s)", k.sent, k.p50, k.problems), b[0])
	}
	// 2. producer + consumer at once
	e.Printf("\n%-4s %-9s %-44s %s\n", "run", "first", "mqbench consumers 1: sent/s recv/s (problems)", "pgbench enqueue + dequeue: in/s out/s")
	var k2s, k2r, b2w, b2r []float64
	for i := 1; i <= repeats; i++ {
		var k nsqRow
		var b [2]float64
		if err := interleave(i, func() (err error) { k, err = mq(fmt.Sprintf("pg-max-wr-%d", i), 1, 1); return err },
			func() (err error) { b, err = pg.bench(fmt.Sprintf("wr_%d", i), "reader"); return err }); err != nil {
			return err
		}
		k2s, k2r, b2w, b2r = append(k2s, k.sent), append(k2r, k.received), append(b2w, b[0]), append(b2r, b[1])
		e.Printf("%-4d %-9s %-44s %.0f %.0f\n", i, first(i), fmt.Sprintf("%.0f %.0f (%s)", k.sent, k.received, k.problems), b[0], b[1])
	}
	// 4. producer only, multi-row INSERTs. A fresh server creates and zero-fills its WAL files
	// (up to max_wal_size) in the first runs that write gigabytes, so whichever tool ran first
	// paid for them: one untimed pgbench run writes them before the pairs.
	if _, err := pg.bench("wm_warmup", "multi"); err != nil {
		return err
	}
	e.Printf("\n%-4s %-9s %-44s %s\n", "run", "first", fmt.Sprintf("mqbench publish_batch %d: rows/s (p50 us, problems)", rows), fmt.Sprintf("pgbench %d-row INSERT: rows/s", rows))
	var k4, b4 []float64
	for i := 1; i <= repeats; i++ {
		var k nsqRow
		var b [2]float64
		if err := interleave(i, func() (err error) { k, err = mq(fmt.Sprintf("pg-max-wm-%d", i), 0, rows); return err },
			func() (err error) { b, err = pg.bench(fmt.Sprintf("wm_%d", i), "multi"); return err }); err != nil {
			return err
		}
		k4, b4 = append(k4, k.sent), append(b4, b[0])
		e.Printf("%-4d %-9s %-44s %.0f\n", i, first(i), fmt.Sprintf("%.0f (%.0f, %s)", k.sent, k.p50, k.problems), b[0])
	}
	// 3. publish latency at rate msg/s: mqbench first, then pgbench -R
	l50, l99, lok, err := e.Latency(fmt.Sprintf("pg-latency-%d", rate), `{ type: postgres, url: "`+url+`" }`, rate, conns, time.Duration(secs)*time.Second)
	if err != nil {
		return err
	}
	p50, p99, pok, err := pg.latency(rate)
	if err != nil {
		return err
	}
	t := e.Table([3]int{56, 14, 14}, "pgbench")
	t.Medians("producer only, msg/s", k1, b1)
	ha, hb := t.Medians(fmt.Sprintf("producer only, %d-row INSERTs, msg/s", rows), k4, b4)
	t.Medians("producer + consumer, enqueued msg/s", k2s, b2w)
	t.Medians("producer + consumer, dequeued msg/s", k2r, b2r)
	a50, a99 := mathRound(l50), mathRound(l99)
	t.Row(fmt.Sprintf("INSERT -> COMMIT p50 at %d msg/s, us", rate), fmt.Sprintf("%.0f", a50), fmt.Sprintf("%.0f", p50), Ratio(a50, p50)+"x")
	t.Row(fmt.Sprintf("INSERT -> COMMIT p99 at %d msg/s, us", rate), fmt.Sprintf("%.0f", a99), fmt.Sprintf("%.0f", p99), Ratio(a99, p99)+"x")
	e.Printf("rate %d held: mqbench %s; pgbench %s\n", rate, lok, pok)
	e.Printf(`Closed loops (rows 1-3), medians over %d run(s) of %d s: %d connection(s)
INSERTing, each waiting for its COMMIT (synchronous_commit on: a WAL flush per COMMIT,
shared by concurrent ones) before the next. The consumer side: one connection taking batches
of %d rows in a transaction per batch; pgbench's dequeuer loops without pause, mqbench's
waits 5 ms (poll_interval) when it found the table empty, and hands every row to its
measurement in the same k6 process as its producers. pgbench's enqueue sends the payload as text (hex, 2 KB
on the wire), mqbench as binary (1 KB). Latency rows: %d msg/s spread over %d
connections, the first 2 s not counted; mqbench's is Send -> COMMIT returned, pgbench's its
transaction time from the transaction's actual start (its logged time minus schedule lag).
The multi-row row: both tools INSERT %d rows per statement and COMMIT; mqbench gathers
them from its closed loop (%d unanswered per producer: one INSERT running, the
next batch gathering), each message timed from its send
to its statement's COMMIT (its wait for the batch included). Before its pairs one untimed
pgbench run of the same writes the fresh server's WAL files, which the first run would pay for.
(k6 logs and summaries, pgbench output: %s)
`, repeats, secs, conns, pgDequeueBatch, rate, conns, rows, 2*rows, e.Dir)
	return e.Headline("postgres", fmt.Sprintf("producer only, %d-row INSERTs, msg/s (pgbench)", rows), fmt.Sprintf("%.0f", ha), fmt.Sprintf("%.0f pgbench", hb), Ratio(ha, hb)+"x")
}

// pgDequeueBatch is the rows per dequeue, both tools (the driver's batch_size default).
const pgDequeueBatch = 100

// pgTools runs psql and pgbench against the bench's server.
type pgTools struct {
	e                          *Env
	port, bin, prefix, payload string
	secs, conns, rows          int
}

func (p pgTools) psql(args ...string) (string, error) {
	out, err := exec.Command(filepath.Join(p.bin, "psql"), append([]string{"-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", p.port, "-U", "postgres", "-d", "mqbench"}, args...)...).CombinedOutput()
	return string(out), err
}

func (p pgTools) drop(table string) {
	if _, err := p.psql("-c", `DROP TABLE IF EXISTS "`+table+`"`); err != nil {
		fmt.Fprintf(os.Stderr, "warning: could not drop table %s\n", table)
	}
}

// scripts writes pgbench's scripts for table t: enqueue, multi-row enqueue, dequeue (the
// statements the driver sends), and creates t as the driver's Setup does (poll: no trigger).
func (p pgTools) scripts(t string) error {
	q := `"` + t + `"`
	multi := strings.TrimPrefix(strings.Repeat(", (:payload::bytea)", p.rows), ", ")
	for name, sql := range map[string]string{
		"enq":  "INSERT INTO " + q + " (payload) VALUES (:payload::bytea);\n",
		"enqm": "INSERT INTO " + q + " (payload) VALUES " + multi + ";\n",
		"deq":  fmt.Sprintf("BEGIN;\nDELETE FROM %s WHERE id IN (SELECT id FROM %s ORDER BY id FOR UPDATE SKIP LOCKED LIMIT %d) RETURNING payload;\nCOMMIT;\n", q, q, pgDequeueBatch),
	} {
		if err := os.WriteFile(filepath.Join(p.e.Dir, t+"."+name+".sql"), []byte(sql), 0o644); err != nil {
			return err
		}
	}
	_, err := p.psql("-c", "CREATE TABLE "+q+" (id bigserial PRIMARY KEY, payload bytea NOT NULL)")
	return err
}

// pgbench runs pgbench with args in Dir, bounded by secs + 60 s, its output to log.
func (p pgTools) pgbench(ctx context.Context, log string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(p.bin, "pgbench"), append([]string{"-h", "127.0.0.1", "-p", p.port, "-U", "postgres", "-n", "-M", "prepared"}, args...)...)
	cmd.Dir = p.e.Dir
	if f, err := os.Create(log); err == nil {
		cmd.Stdout, cmd.Stderr = f, f
	}
	return cmd
}

var pgTx = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)

// bench is pgbench's enqueue on conns connections for secs (mode "reader": a dequeuing pgbench
// at the same time; "multi": rows rows per INSERT): inserted/s and dequeued/s (0 without reader).
func (p pgTools) bench(name, mode string) ([2]float64, error) {
	var out [2]float64
	t := p.prefix + "_" + name
	if err := p.scripts(t); err != nil {
		return out, err
	}
	defer p.drop(t)
	script, per := "enq", 1
	if mode == "multi" {
		script, per = "enqm", p.rows
	}
	elog, dlog := filepath.Join(p.e.Dir, t+".enq.log"), filepath.Join(p.e.Dir, t+".deq.log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(p.secs+60)*time.Second)
	defer cancel()
	var deq *exec.Cmd
	if mode == "reader" {
		deq = p.pgbench(ctx, dlog, "-c", "1", "-j", "1", "-T", strconv.Itoa(p.secs), "-f", t+".deq.sql", "mqbench")
		if err := deq.Start(); err != nil {
			return out, err
		}
	}
	err := p.pgbench(ctx, elog, "-c", strconv.Itoa(p.conns), "-j", strconv.Itoa(p.conns), "-T", strconv.Itoa(p.secs),
		"-D", "payload="+p.payload, "-f", t+"."+script+".sql", "mqbench").Run()
	if deq != nil {
		if derr := deq.Wait(); err == nil {
			err = derr
		}
	}
	left, _ := p.psql("-tAc", `SELECT count(*) FROM "`+t+`"`)
	if err != nil {
		return out, fmt.Errorf("pgbench failed (%v); see %s %s", err, elog, dlog)
	}
	b, _ := os.ReadFile(elog)
	g := pgTx.FindSubmatch(b)
	if g == nil {
		return out, fmt.Errorf("no transaction count in %s: %s", elog, childrun.LastLines(string(b), 20))
	}
	n, _ := strconv.Atoi(string(g[1]))
	n *= per
	out[0] = float64(n / p.secs)
	if mode == "reader" {
		l, _ := strconv.Atoi(strings.TrimSpace(left))
		out[1] = float64((n - l) / p.secs)
	}
	return out, nil
}

// latency is pgbench's enqueue at rate tx/s (-R, conns connections, 2 s not counted, as
// mqbench's warm-up), from its per-transaction log: p50, p99 (µs) and whether it held.
func (p pgTools) latency(rate int) (p50, p99 float64, held string, err error) {
	t := p.prefix + "_lat"
	if err := p.scripts(t); err != nil {
		return 0, 0, "", err
	}
	defer p.drop(t)
	logs, _ := filepath.Glob(filepath.Join(p.e.Dir, "pgbench_log.*"))
	for _, l := range logs {
		_ = os.Remove(l)
	}
	log := filepath.Join(p.e.Dir, t+".log")
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(p.secs+60)*time.Second)
	defer cancel()
	if err := p.pgbench(ctx, log, "-c", strconv.Itoa(p.conns), "-j", strconv.Itoa(p.conns), "-R", strconv.Itoa(rate), "-T", strconv.Itoa(p.secs+2),
		"-l", "-D", "payload="+p.payload, "-f", t+".enq.sql", "mqbench").Run(); err != nil {
		return 0, 0, "", fmt.Errorf("pgbench -R failed (%v); see %s", err, log)
	}
	logs, _ = filepath.Glob(filepath.Join(p.e.Dir, "pgbench_log.*"))
	var text strings.Builder
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		text.Write(b)
		_ = os.Remove(l)
	}
	p50, p99, n := pgLatencies(text.String())
	held = "held"
	if float64(n) < 0.98*float64(rate*p.secs) {
		held = fmt.Sprintf("NOT held: %d of %d", n, rate*p.secs)
	}
	return p50, p99, held, nil
}

// pgLatencies reads pgbench's per-transaction log lines (with -R: client_id transaction_no
// time_us script_no time_epoch time_us_of_epoch schedule_lag_us): with -R, time_us counts
// from the scheduled start, so the lag is taken off; the first 2 s (from the earliest
// transaction) are the warm-up; p50 / p99 are the nearest-rank latencies of the n counted.
func pgLatencies(log string) (p50, p99 float64, n int) {
	type tx struct{ at, lat float64 }
	var txs []tx
	first := -1.0
	for _, l := range strings.Split(log, "\n") {
		f := strings.Fields(l)
		if len(f) < 7 {
			continue
		}
		v := make([]float64, 7)
		ok := true
		for i := range v {
			var err error
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				ok = false
			}
		}
		if !ok {
			continue
		}
		at := v[4]*1e6 + v[5]
		txs = append(txs, tx{at, v[2] - v[6]})
		if first < 0 || at < first {
			first = at
		}
	}
	var lats []float64
	for _, t := range txs {
		if t.at >= first+2e6 {
			lats = append(lats, t.lat)
		}
	}
	sort.Float64s(lats)
	q := func(x float64) float64 {
		if len(lats) == 0 {
			return 0
		}
		return lats[min(int(x*float64(len(lats))), len(lats)-1)]
	}
	return q(0.5), q(0.99), len(lats)
}
