package promrw

import (
	"math"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
	"go.k6.io/k6/v2/lib"
)

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		name, arg string
		env       map[string]string
		check     func(config) bool
		err       string
	}{
		{name: "defaults", check: func(c config) bool {
			return c.url == "http://127.0.0.1:9090/api/v1/write" && c.schema == 5 && !c.classic && c.pushInterval.String() == "5s"
		}},
		{name: "argument", arg: "https://u:p%40ss@prom:9090/api/v1/write?pushInterval=1s&schema=3&insecure=true", check: func(c config) bool {
			return c.url == "https://prom:9090/api/v1/write" && c.user == "u" && c.pass == "p@ss" && c.schema == 3 && c.insecure && c.pushInterval.String() == "1s"
		}},
		{name: "classic", arg: "http://h:1/w?histograms=classic", check: func(c config) bool { return c.classic && c.schema == classicSchema }},
		{name: "k6 env", env: map[string]string{"K6_PROMETHEUS_RW_SERVER_URL": "http://h:2/w", "K6_PROMETHEUS_RW_USERNAME": "a",
			"K6_PROMETHEUS_RW_PASSWORD": "b", "K6_PROMETHEUS_RW_PUSH_INTERVAL": "2s"},
			check: func(c config) bool {
				return c.url == "http://h:2/w" && c.user == "a" && c.pass == "b" && c.pushInterval.String() == "2s"
			}},
		{name: "bad schema", arg: "http://h:1/w?schema=9", err: "schema: \"9\": want 0 to 8"},
		{name: "bad histograms", arg: "http://h:1/w?histograms=summary", err: `histograms: "summary": want native or classic`},
		{name: "unknown parameter", arg: "http://h:1/w?window=1s", err: `unknown query parameter "window"`},
		{name: "not http", arg: "udp://h:1", err: "want http(s)://"},
		{name: "password not in errors", arg: "ftp://u:hunter2@h:1", err: "want http(s)://"},
		{name: "bad interval", env: map[string]string{"K6_PROMETHEUS_RW_PUSH_INTERVAL": "-1s"}, err: "is not a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.env, tc.arg)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "hunter2") {
					t.Fatalf("err %v, want one containing %q (and no password)", err, tc.err)
				}
				return
			}
			if err != nil || !tc.check(c) {
				t.Fatalf("config %+v, err %v", c, err)
			}
		})
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct{ in, label string }{
		{"cell", "cell"}, {"odd-name", "odd_name"}, {"1st", "_1st"}, {"a.b/c", "a_b_c"}, {"__x", "tag__x"}, {"ünï", "_n_"}, {"", "_"},
	} {
		if got := labelName(tc.in); got != tc.label {
			t.Errorf("labelName(%q) = %q, want %q", tc.in, got, tc.label)
		}
	}
	if got := metricName("mq_e2e_latency"); got != "k6_mq_e2e_latency" {
		t.Errorf("metricName = %q", got)
	}
	ls := labelSet("m", map[string]string{"vu": "1", "iter": "2", "stat": "p99", "cell": "c1", "odd-name": "a \"b\"\nc", "empty": "", "bad": "\xff"})
	got := map[string]string{}
	for i, l := range ls {
		if i > 0 && ls[i-1].Name >= l.Name {
			t.Errorf("labels not sorted: %v", ls)
		}
		got[l.Name] = l.Value
	}
	want := map[string]string{"__name__": "m", "cell": "c1", "odd_name": "a \"b\"\nc", "bad": "\uFFFD"}
	if len(got) != len(want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("label %s = %q, want %q", k, got[k], v)
		}
	}
}

// The remote write form of a cumulative histogram decodes back to its buckets, and classic
// buckets are cumulative counts ending at +Inf with the total.
func TestCumHistEncoding(t *testing.T) {
	h := newCumHist(5)
	h.addInterval(&hist.Native{Schema: 5, Zero: 1, Buckets: []hist.NativeBucket{{Index: -300, Count: 4}, {Index: -299, Count: 2}, {Index: -250, Count: 7}}}, 0.5)
	for _, v := range []float64{1e-4, 1e-4, 0} {
		h.observe(v)
	}
	p := h.native(1000)
	if p.GetCountInt() != 17 || p.GetZeroCountInt() != 2 || p.Sum != 0.5+2e-4 || p.Schema != 5 || p.Timestamp != 1000 {
		t.Fatalf("histogram %+v", p)
	}
	decoded := map[int32]uint64{}
	idx, k, count := int32(0), 0, int64(0)
	for si, span := range p.PositiveSpans {
		if si == 0 {
			idx = span.Offset
		} else {
			idx += span.Offset
		}
		for range span.Length {
			count += p.PositiveDeltas[k]
			decoded[idx] = uint64(count)
			idx++
			k++
		}
	}
	for i, c := range h.buckets {
		if decoded[i] != c {
			t.Errorf("bucket %d: decoded %d, want %d (spans %v deltas %v)", i, decoded[i], c, p.PositiveSpans, p.PositiveDeltas)
		}
	}
	if len(decoded) != len(h.buckets) {
		t.Errorf("decoded %v, want %v", decoded, h.buckets)
	}

	c := newCumHist(classicSchema)
	for _, v := range []float64{0, 5e-6, 100e-6, 100e-6, 0.002, 120} {
		c.observe(v)
	}
	les, counts := c.classic()
	if !math.IsInf(les[len(les)-1], 1) || counts[len(counts)-1] != 6 {
		t.Fatalf("last bucket %v = %d, want +Inf = 6", les[len(les)-1], counts[len(counts)-1])
	}
	at := func(le float64) uint64 {
		for i := range les {
			if les[i] >= le {
				return counts[i]
			}
		}
		return 0
	}
	if at(10e-6) != 2 || at(100e-6) != 4 || at(0.0021) != 5 || at(60) != 5 {
		t.Errorf("cumulative counts %v at %v", counts, les)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] || les[i] <= les[i-1] {
			t.Errorf("not cumulative at %d: %v %v", i, les, counts)
		}
	}
}

// A failing Prometheus is said once, its recovery once; three refusals in a row stop the pushes.
func TestHealth(t *testing.T) {
	log, hook := logtest.NewNullLogger()
	var h health
	down := &pushError{msg: "dial tcp: refused"}
	for _, err := range []error{nil, down, down, down, nil, nil} {
		h.record(log, 10, 100, err)
	}
	if n := len(hook.AllEntries()); n != 2 || hook.AllEntries()[0].Level != logrus.WarnLevel {
		t.Fatalf("%d log lines, want a warning when it failed and one when it came back: %v", n, hook.AllEntries())
	}
	if h.r.Pushes != 6 || h.r.FailedPushes != 3 || h.r.DroppedPoints != 30 || h.r.Bytes != 300 || h.r.GaveUp || h.r.Error != "dial tcp: refused" {
		t.Errorf("report %+v", h.r)
	}
	hook.Reset()
	var r health
	refused := &pushError{status: 401, refused: true, msg: "401 Unauthorized"}
	for range 5 {
		if !r.gaveUp() {
			r.record(log, 1, 0, refused)
		}
	}
	if !r.r.GaveUp || r.r.FailedPushes != refusedLimit || len(hook.AllEntries()) != 2 || hook.LastEntry().Level != logrus.ErrorLevel {
		t.Errorf("report %+v, log %v", r.r, hook.AllEntries())
	}
}

// A gauge unchanged for idleLimit pushes gets one staleness marker; a counter never does.
func TestStaleGauges(t *testing.T) {
	g := &series{kind: kindGauge, sent: true, lastStamp: 10}
	c := &series{kind: kindCounter, sent: true}
	var marks int
	for i := range 2 * idleLimit {
		if m := g.staleMarker(int64(100 + i)); m != nil {
			marks++
			if v := m[0].Samples[0].Value; !math.IsNaN(v) || math.Float64bits(v) != 0x7ff0000000000002 {
				t.Errorf("marker value %x, want Prometheus's stale NaN", math.Float64bits(v))
			}
		}
		if c.staleMarker(int64(100+i)) != nil {
			t.Error("a counter was marked stale")
		}
	}
	if marks != 1 {
		t.Errorf("%d markers, want 1", marks)
	}
}

// A runner of a distributed run labels its series with its place among k6's execution
// segments; a whole run, or a segment without a sequence, adds no label.
func TestRunnerLabel(t *testing.T) {
	for _, tc := range []struct{ segment, sequence, want string }{
		{"", "", ""},
		{"1/3:2/3", "0,1/3,2/3,1", "2"},
		{"0:1/2", "0,1/2,1", "1"},
		{"0:1", "", ""},
	} {
		var o lib.Options
		if tc.segment != "" {
			seg, err := lib.NewExecutionSegmentFromString(tc.segment)
			if err != nil {
				t.Fatal(err)
			}
			o.ExecutionSegment = seg
		}
		if tc.sequence != "" {
			seq, err := lib.NewExecutionSegmentSequenceFromString(tc.sequence)
			if err != nil {
				t.Fatal(err)
			}
			o.ExecutionSegmentSequence = &seq
		}
		if got := runnerLabel(o); got != tc.want {
			t.Errorf("segment %q of %q: label %q, want %q", tc.segment, tc.sequence, got, tc.want)
		}
	}
}

// Classic buckets are named after the series' metric even when a tag sorts before __name__
// (upper-case names do: 'Z' < '_').
func TestClassicNamesWithUpperCaseTag(t *testing.T) {
	s := &series{labels: labelSet("k6_mq_e2e_latency_seconds", map[string]string{"Zone": "eu", "cell": "c1"}), kind: kindHist, h: newCumHist(classicSchema), sent: true}
	s.h.observe(1e-3)
	for _, ts := range s.encode(1000, true) {
		name := metricOf(ts.Labels)
		if !strings.HasPrefix(name, "k6_mq_e2e_latency_seconds_") {
			t.Errorf("series named %q (labels %v)", name, ts.Labels)
		}
	}
}
