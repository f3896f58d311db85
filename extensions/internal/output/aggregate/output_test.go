package aggregate

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	"go.k6.io/k6/v2/metrics"
	"go.k6.io/k6/v2/output"
)

// recorder is an InfluxDB stand-in that keeps the line protocol it was sent.
type recorder struct {
	mu    sync.Mutex
	lines []string
	fail  bool
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/query" {
		w.WriteHeader(http.StatusOK)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return
	}
	if req.URL.Query().Get("db") != "testdb" || req.URL.Query().Get("precision") != "ns" {
		http.Error(w, "bad query "+req.URL.RawQuery, http.StatusBadRequest)
		return
	}
	b, _ := io.ReadAll(req.Body)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l != "" {
			r.lines = append(r.lines, l)
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	sort.Strings(out)
	return out
}

func TestAggOutputWindows(t *testing.T) {
	rec := &recorder{}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	reg := metrics.NewRegistry()
	trend := reg.MustNewMetric("mq_e2e_latency", metrics.Trend, metrics.Time)
	counter := reg.MustNewMetric("mq_messages_received", metrics.Counter)
	gauge := reg.MustNewMetric("mq_backlog", metrics.Gauge)
	rate := reg.MustNewMetric("checks", metrics.Rate)
	tags := reg.RootTagSet().With("cell", "c1").With("testid", "x y,z=1").With("vu", "3")

	logger := logrus.New()
	logger.SetOutput(io.Discard)
	o, err := newAggOutput(output.Params{ConfigArgument: srv.URL + "/testdb?grace=1h&pushInterval=1h", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if err := o.Start(); err != nil {
		t.Fatal(err)
	}
	base := time.Now().Truncate(time.Second)
	ns := func(sec int64) string { return " " + strconv.FormatInt(base.UnixNano()+sec*1e9, 10) }
	sample := func(m *metrics.Metric, at time.Duration, v float64) metrics.Sample {
		return metrics.Sample{TimeSeries: metrics.TimeSeries{Metric: m, Tags: tags}, Time: base.Add(at), Value: v}
	}
	var s metrics.Samples
	for i := 1; i <= 100; i++ { // second 0: latencies 1..100 ms
		s = append(s, sample(trend, time.Duration(i)*time.Millisecond, float64(i)))
	}
	s = append(s, sample(counter, 10*time.Millisecond, 40), sample(counter, 900*time.Millisecond, 60),
		sample(gauge, 100*time.Millisecond, 7), sample(gauge, 800*time.Millisecond, 3),
		sample(rate, 0, 1), sample(rate, 0, 0), sample(rate, 0, 1), sample(rate, 0, 1),
		sample(counter, 1500*time.Millisecond, 5)) // second 1
	o.AddMetricSamples([]metrics.SampleContainer{s})
	o.flush(false) // grace 1h: nothing is closed yet
	if got := rec.take(); len(got) != 0 {
		t.Fatalf("flushed before the grace period: %v", got)
	}
	o.flush(true)
	got := rec.take()
	ts := ns(0)
	tagPart := `,cell=c1,testid=x\ y\,z\=1` // vu dropped (tagsAsFields default), escaped
	want := []string{
		"checks" + tagPart + " value=0.75,n=4i" + ts,
		"mq_backlog" + tagPart + " value=7,last=3" + ts,
		"mq_messages_received" + tagPart + " value=100" + ts,
		"mq_messages_received" + tagPart + " value=5" + ns(1),
	}
	for stat, v := range map[string]string{"count": "100", "min": "1", "mean": "50.5", "max": "100", "p50": "50",
		"p90": "90", "p95": "95", "p99": "99", "p99.9": "100", "p99.99": "100"} {
		want = append(want, "mq_e2e_latency"+tagPart+",stat="+stat+" value="+v+ts)
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("line protocol:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A sample for a window already written lands in the oldest open one, never overwriting.
	o.AddMetricSamples([]metrics.SampleContainer{metrics.Samples{sample(counter, 200*time.Millisecond, 1)}})
	rec.mu.Lock()
	rec.fail = true // and a failed write is retried on the next flush
	rec.mu.Unlock()
	o.flush(true)
	if len(o.pending) != 1 || len(rec.take()) != 0 {
		t.Fatalf("failed write not kept for retry: %d pending", len(o.pending))
	}
	rec.mu.Lock()
	rec.fail = false
	rec.mu.Unlock()
	if err := o.Stop(); err != nil {
		t.Fatal(err)
	}
	if got := rec.take(); len(got) != 1 || !strings.HasPrefix(got[0], "mq_messages_received") || !strings.HasSuffix(got[0], " value=1"+ns(2)) {
		t.Fatalf("late sample: %v", got)
	}
	var buf bytes.Buffer
	if n := o.encode(&buf, 0, nil); n != 0 || buf.Len() != 0 {
		t.Fatal("empty window wrote points")
	}
}
