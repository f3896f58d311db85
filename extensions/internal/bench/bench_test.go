package bench

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A headline line is what make bench's closing table reads back: written by Headline,
// collected by Summary in the sections' order, a field with a tab or line break refused.
func TestHeadlinesMakeTheSummary(t *testing.T) {
	dir := t.TempDir()
	var a, b bytes.Buffer
	if err := Headline(&a, "nats", "highest rate held over 60s", "300000", "400000 natsfloor", "0.75x"); err != nil {
		t.Fatal(err)
	}
	if err := Headline(&b, "soak", "max RSS", "127 MB", "113 MB, 60s run", "1.12x"); err != nil {
		t.Fatal(err)
	}
	logs := []string{filepath.Join(dir, "nats.log"), filepath.Join(dir, "missing.log"), filepath.Join(dir, "soak.log")}
	_ = os.WriteFile(logs[0], []byte("== NATS\nrate batch\n"+a.String()+"(k6 logs)\n"), 0o644)
	_ = os.WriteFile(logs[2], b.Bytes(), 0o644)
	var out bytes.Buffer
	if err := Summary(&out, logs...); err != nil {
		t.Fatal(err)
	}
	want := "| section | headline | mqbench | native | ratio |\n|---|---|---|---|---|\n" +
		"| nats | highest rate held over 60s | 300000 | 400000 natsfloor | 0.75x |\n" +
		"| soak | max RSS | 127 MB | 113 MB, 60s run | 1.12x |\n"
	if out.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", out.String(), want)
	}
	for _, bad := range []string{"a\tb", "a\nb"} {
		if err := Headline(&a, "nats", bad, "1", "2", "0.50x"); err == nil {
			t.Errorf("headline field %q accepted", bad)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Ratio(3, 4), "0.75"}, {Ratio(1, 0), "-"},
		{Secs(600 * time.Second), "600s"}, {Secs(10 * time.Second), "10s"},
		{Ceiling(200000, 350000), "200000"}, {Ceiling(350000, 350000), "≥ 350000"},
		{counts(10000, 9999, 1), "10000/9999/1"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
	if m := Median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("median of 5 1 3: %v", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median of 4 1 3 2: %v", m)
	}
}

// The NATS ladder's default rungs: 40,000 … 350,000, 400,000 … 1,000,000 by 100,000, then
// ×1.25 rounded down to 50,000 until 10,000,000 is passed.
func TestNATSRates(t *testing.T) {
	r := natsRates()
	s := strings.Trim(fmt.Sprint(r[10:20]), "[]")
	if s != "300000 350000 400000 500000 600000 700000 800000 900000 1000000 1250000" {
		t.Errorf("rungs 11-20: %s", s)
	}
	if r[0] != 40000 || r[len(r)-1] < 10000000 || r[len(r)-2] >= 10000000 {
		t.Errorf("first %d, last two %d %d", r[0], r[len(r)-2], r[len(r)-1])
	}
}

// Settings: whole seconds and positive integers, else an error naming the variable.
func TestSettings(t *testing.T) {
	e := &Env{Getenv: func(n string) string { return map[string]string{"D": "90s", "BAD": "1m", "N": "0", "R": "100 x"}[n] }}
	if d, err := e.Seconds("D", "60s"); err != nil || d != 90*time.Second {
		t.Errorf("D: %v %v", d, err)
	}
	if d, err := e.Seconds("UNSET", "60s"); err != nil || d != time.Minute {
		t.Errorf("UNSET: %v %v", d, err)
	}
	if _, err := e.Seconds("BAD", "60s"); err == nil || !strings.Contains(err.Error(), "BAD must be whole seconds like 60s, got 1m") {
		t.Errorf("BAD: %v", err)
	}
	if _, err := e.PositiveInt("N", 3); err == nil || !strings.Contains(err.Error(), "N must be a positive integer, got 0") {
		t.Errorf("N: %v", err)
	}
	if _, err := e.Ints("R", nil); err == nil || !strings.Contains(err.Error(), `R must be positive integers, got "x"`) {
		t.Errorf("R: %v", err)
	}
}

// ProducerPerformance's steady-state line, in µs; an exception anywhere in its output marks
// the run as erring; output without the line is no reading.
func TestParseProducerPerformance(t *testing.T) {
	out := "2000 records sent, 1998.0 records/sec\n10000 steady state records sent, 990.8 records/sec (0.97 MB/sec), 2.25 ms avg latency, 31.00 ms max latency, 2 ms 50th, 3 ms 95th, 6 ms 99th, 19 ms 99.9th.\n"
	r, ok := parsePP([]byte(out))
	if want := (ppRun{990.8, 2250, 31000, 2000, 3000, 6000, 19000, false}); !ok || r != want {
		t.Errorf("%+v %v, want %+v", r, ok, want)
	}
	if r, ok := parsePP([]byte(out + "org.apache.kafka.common.errors.TimeoutException: expired\n")); !ok || !r.errors {
		t.Errorf("an exception: %+v %v", r, ok)
	}
	if _, ok := parsePP([]byte("Exception in thread main\n")); ok {
		t.Error("no steady-state line read as one")
	}
}

// PerfTest's end-of-run confirm latency and its per-second CSV rows from the warm-up on: mean
// rates, the seconds' p99 confirm latency median and max.
func TestParsePerfTest(t *testing.T) {
	out := []byte("id: test-072919-418, time 12.000 s, sent: 1000 msg/s\nid: test-072919-418, confirm latency min/median/75th/95th/99th 362/521/605/3583/8005 µs\n")
	rows := []byte(`id,time (s),published (msg/s),returned (msg/s),confirmed (msg/s),nacked (msg/s),received (msg/s),99th p. confirm latency (µs)
test-1,1.000,1002,,1002,0,1002,7924
test-1,2.000,1001,,1000,0,1000,5303
test-1,3.000,999,,1000,0,1000,8376
test-1,4.000,1000,,998,2,996,4000
`)
	r, err := parsePT(out, rows, 2)
	// the rows from 2.5 s on (PerfTest's first seconds are its warm-up): 3 s and 4 s
	want := ptRun{p50: 521, p99: 8005, published: 999.5, confirmed: 999, nacked: 1, received: 998, p99Median: 6188, p99Max: 8376}
	if err != nil || r != want {
		t.Errorf("%+v %v\nwant %+v", r, err, want)
	}
	if _, err := parsePT([]byte("no summary"), rows, 2); err == nil {
		t.Error("output without the latency summary read")
	}
}

func TestNSQFigures(t *testing.T) {
	for _, c := range []struct {
		sent, received, lost, errors float64
		check                        bool
		want                         string
	}{
		{100, 100, 0, 0, true, "-"}, {100, 90, 0, 0, false, "-"}, {100, 90, 2, 3, true, "received=90/100,lost=2,errors=3"},
	} {
		if got := problems(c.sent, c.received, c.lost, c.errors, c.check); got != c.want {
			t.Errorf("%+v: %q", c, got)
		}
	}
	v, err := opsPerSecond("w.log", "rate limit\nduration: 10.0s - 95.1mb/s - 97406.500ops/s - 10.266us/op\n")
	if err != nil || v != 97406 { // half to even, as printf %.0f
		t.Errorf("%v %v", v, err)
	}
	if _, err := opsPerSecond("w.log", "panic: no nsqd\n"); err == nil || !strings.Contains(err.Error(), "no ops/s line in w.log") {
		t.Errorf("%v", err)
	}
}

// pgbench -R's per-transaction log: the latency is its time less the schedule lag, the
// first 2 s from the earliest transaction are the warm-up, the quantiles nearest-rank.
func TestPgbenchLatencies(t *testing.T) {
	var log strings.Builder
	log.WriteString("garbage line\n")
	// client tx time_us script epoch epoch_us lag_us: 1 s of warm-up (not counted), then 100
	// transactions whose latency (time - lag) is 1..100 µs
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&log, "0 %d 5000 0 1700000000 %d 10\n", i, i*100000)
	}
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&log, "1 %d %d 0 1700000002 %d 7\n", i, i+7, i*1000)
	}
	p50, p99, n := pgLatencies(log.String())
	if n != 100 || p50 != 51 || p99 != 100 {
		t.Errorf("p50 %v p99 %v of %d; want 51, 100 of 100", p50, p99, n)
	}
}

// The perf client's report: its summary's totals and latencies, and the means of its
// intervals after the warm-up while the producer ran (the drain's and the last, partial
// second left out).
func TestParsePerfClient(t *testing.T) {
	iv := func(warm bool, sent, completed, received, late int) string {
		return fmt.Sprintf(`{"sampleType":"interval","warmup":%v,"sent":%d,"completed":%d,"received":%d,"delaySendTime":{"mean":"1.0","50":1,"max":%d}}`, warm, sent, completed, received, late)
	}
	report := "[" + strings.Join([]string{iv(true, 500, 400, 300, 999999), iv(false, 1000, 1000, 990, 2000), iv(false, 1000, 990, 1000, 5000),
		iv(false, 400, 400, 400, 1), iv(false, 0, 10, 20, 0),
		`{"sampleType":"summary","result":"success","totalSent":2400,"totalCompleted":2400,"totalReceived":2400,"totalSendTime":{"mean":"2.0","50":2367,"99":10431},"totalTransferTime":{"50":2687,"99":10303}}`}, ",") + "]"
	r, err := parsePC([]byte(report))
	want := pcRun{sent: 1000, completed: 995, received: 995, lateMax: 5000, complete: true, totalSent: 2400, totalCompleted: 2400, totalRecvd: 2400,
		send50: 2367, send99: 10431, transfer50: 2687, transfer99: 10303}
	if err != nil || r != want {
		t.Errorf("%+v %v\nwant %+v", r, err, want)
	}
	if _, err := parsePC([]byte(strings.Replace(report, `"success"`, `"fail"`, 1))); err == nil {
		t.Error("a failed run read")
	}
}

// PerfTest's confirmed rate over a closed loop: each second's rate weighted by its length.
func TestConfirmedRate(t *testing.T) {
	rows := []byte("id,time (s),published (msg/s),confirmed (msg/s)\nt,1.000,10,1000\nt,2.000,10,2000\nt,2.500,10,4000\n")
	if got := confirmedRate(rows); got != (1000+2000+4000*0.5)/2.5 {
		t.Errorf("%v", got)
	}
}

// checkMsgSendRT's output: the last Avg RT, and the failed sends after the first (which may
// fail while the route is fetched).
func TestParseSendRT(t *testing.T) {
	out := "broker-a  0  false  3\nbroker-a  1  true  2\nbroker-a  2  true  1\nAvg RT: 2.96\n"
	if v, bad, ok := parseSendRT(out); !ok || bad != 0 || v != "2.96" {
		t.Errorf("%v %v %v", v, bad, ok)
	}
	if _, bad, _ := parseSendRT(out + "broker-a  3  false  9\n"); bad != 1 {
		t.Errorf("a second failed send: %d counted", bad)
	}
	if _, _, ok := parseSendRT("Exception\n"); ok {
		t.Error("no Avg RT read")
	}
}

func TestPulsarPerfField(t *testing.T) {
	out := "12:00 INFO Throughput produced: 100 msg/s\n12:01 INFO Aggregated throughput stats --- 500000 records sent --- 94919.285 msg/s --- 741.557 Mbit/s\n12:01 INFO Aggregated latency stats --- Latency: mean: 10.2 ms - med: 2.579 - 95pct: 4.1 - 99pct: 5.512 - 99.9pct: 9 - max: 20\n"
	for _, c := range []struct {
		pattern, marker string
		want            float64
	}{{`--- ([0-9.]+) msg/s`, "Aggregated throughput", 94919.285}, {`med: *([0-9.]+)`, "Aggregated", 2.579}, {`99pct: *([0-9.]+)`, "Aggregated", 5.512}} {
		if v, ok := pulsarPerfField(out, c.pattern, c.marker); !ok || v != c.want {
			t.Errorf("%s: %v %v", c.pattern, v, ok)
		}
	}
}

// What the gate judged in a delayed pair, from compare's line: the seconds' p99 median before
// and after, in µs whatever unit compare printed.
func TestGateShift(t *testing.T) {
	out := "FAIL  cell c1: e2e p99 regressed 29% (1.00ms -> 1.29ms), per-second median 209us -> 2.10s; noise 3%\n"
	if from, to, ok := gateShift(out); !ok || from != 209 || to != 2.1e6 {
		t.Errorf("%v %v %v", from, to, ok)
	}
	if _, _, ok := gateShift("ok    cell c1: e2e p99 better\n"); ok {
		t.Error("a line without the shift read")
	}
	if v, ok := microseconds("1.00ms"); !ok || v != 1000 {
		t.Errorf("1.00ms: %v %v", v, ok)
	}
}
