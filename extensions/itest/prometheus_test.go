package itest

// mqbench's Prometheus output against a real Prometheus (scripts/brokers/start.sh prometheus:
// Debian's 2.42 with the remote write receiver and native histograms). Real runs push to it;
// the checks ask Prometheus's HTTP API, as Grafana would. MQBENCH_PROMETHEUS_URL (default
// http://127.0.0.1:9090) names it.

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// promSeries is one series of a query's result (an instant vector's sample, or a matrix's
// points).
type promSeries struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"`
	Values [][]any           `json:"values"`
}

type prom struct {
	t   *testing.T
	url string
}

func promURL(t *testing.T) string {
	return serviceURL(t, "Prometheus", "MQBENCH_PROMETHEUS_URL", "http://127.0.0.1:9090", "/-/ready", "prometheus")
}

// api calls one of Prometheus's query endpoints and decodes data.result (or data).
func (p prom) api(path string, form url.Values, into any) error {
	resp, err := http.Get(p.url + path + "?" + form.Encode())
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var r struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Status != "success" {
		return fmt.Errorf("HTTP %s: %s %s", resp.Status, r.Error, b)
	}
	if strings.HasPrefix(path, "/api/v1/query") {
		var d struct {
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return err
		}
		return json.Unmarshal(d.Result, into)
	}
	return json.Unmarshal(r.Data, into)
}

// instant evaluates q now.
func (p prom) instant(q string) []promSeries {
	p.t.Helper()
	var out []promSeries
	if err := p.api("/api/v1/query", url.Values{"query": {q}}, &out); err != nil {
		p.t.Fatalf("%s: %v", q, err)
	}
	return out
}

// value is the only sample of an instant query (the test fails on none or several).
func (p prom) value(q string) (float64, map[string]string) {
	p.t.Helper()
	r := p.instant(q)
	if len(r) != 1 {
		p.t.Fatalf("%s: %d series, want 1: %+v", q, len(r), r)
	}
	return sampleFloat(p.t, r[0].Value), r[0].Metric
}

func sampleFloat(t *testing.T, v []any) float64 {
	t.Helper()
	if len(v) != 2 {
		t.Fatalf("sample %v", v)
	}
	s, _ := v[1].(string)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("sample %v: %v", v, err)
	}
	return f
}

// nativeResolution is how far a quantile PromQL computes from a native histogram of schema
// 5 (the output's default) may lie from the exact one: within one bucket (growth 2^(1/32),
// 2.2 %), plus HdrHistogram's 3 significant digits on summary.json's side.
func nativeResolution(v float64) float64 { return v*(math.Exp2(1.0/32)-1) + v*0.002 + 1e-9 }

// TestPrometheusMatchesSummary runs a 2-cell NATS scenario and a Kafka one with
// --out mqbench-prometheus and checks what Prometheus holds against summary.json: per cell,
// the counters equal exactly, histogram_count equals the distribution's count,
// histogram_quantile's p50 and p99 lie within the histogram's resolution of summary.json's,
// and the series carry the run's labels (a tag with quotes, a newline and a name Prometheus
// does not allow arrives intact under a sanitised name). Then every panel query of the
// Prometheus dashboards runs over these two runs (prometheus_dashboards_test.go).
func TestPrometheusMatchesSummary(t *testing.T) {
	waitTurn(t, 25*time.Second) // counts and one distribution seen two ways: no timing judged
	p := prom{t, promURL(t)}
	out := "--out=mqbench-prometheus=" + p.url + "/api/v1/write?pushInterval=1s"
	oddTag := "say \"hi\"\nthere"
	runs := map[string]run{}
	for _, tc := range []struct {
		broker, url, block, cells string
	}{
		// NATS read through its monitoring port: the broker-side panels get the server's CPU
		// and memory; Kafka's acknowledgements give the publish-latency panels theirs.
		{"nats", "nats://127.0.0.1:4222", `, nats: { monitor_url: "http://127.0.0.1:8222" }`, "  - { size: 256B, rate: 400 }\n  - { size: 1KB, rate: 800 }\n"},
		{"kafka", "kafka://127.0.0.1:9092", "", "  - { size: 512B, rate: 500 }\n"},
	} {
		t.Run(tc.broker, func(t *testing.T) {
			p := prom{t, p.url}
			dir := t.TempDir()
			file := dir + "/prom.yaml"
			yaml := fmt.Sprintf("name: prom\nbroker: { type: %s, url: %q%s }\n"+
				"workload: { destination: mqbench-itest-prom-%d, warmup: 1s, duration: 4s, drain: 2s }\nmatrix:\n%s"+
				"thresholds: { mq_e2e_latency: [\"p(99) < 2s\"] }\n",
				tc.broker, tc.url, tc.block, time.Now().UnixNano(), tc.cells)
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runScenario(t, file, out, "--tag", "odd-name="+oddTag)
			if r.code != 0 || r.summary == nil {
				t.Fatalf("exit %d\n%s", r.code, r)
			}
			runs[tc.broker] = r
			checkPromRun(t, p, r, oddTag)
		})
	}
	if len(runs) == 2 {
		t.Run("dashboards", func(t *testing.T) { checkPromDashboards(t, p, runs["nats"], runs["kafka"]) })
	}
}

// checkPromRun compares one run's series in Prometheus with its summary.json.
func checkPromRun(t *testing.T, p prom, r run, oddTag string) {
	t.Helper()
	testid := r.summary.Scenario + "-" + r.summary.RunID
	for _, c := range r.summary.Cells {
		sel := fmt.Sprintf(`{testid=%q,cell=%q}`, testid, c.ID)
		counters := []struct {
			metric string
			want   uint64
		}{
			{"k6_mq_messages_sent_total", c.Sent}, {"k6_mq_messages_received_total", c.Received},
			{"k6_mq_messages_acked_total", c.Acked}, {"k6_mq_messages_lost_total", c.Ledger.Lost},
			{"k6_mq_messages_duplicated_total", c.Ledger.Duplicated},
		}
		for _, k := range counters {
			if got, _ := p.value("sum(" + k.metric + sel + ")"); got != float64(k.want) {
				t.Errorf("cell %s: %s = %v, summary.json %d", c.ID, k.metric, got, k.want)
			}
		}
		for _, d := range []struct {
			metric string
			s      stats
		}{{"k6_mq_e2e_latency_seconds", c.E2ELatency}, {"k6_mq_publish_latency_seconds", c.PublishLatency}} {
			if d.s.Count == 0 {
				continue
			}
			h := "sum(" + d.metric + sel + ")"
			if got, _ := p.value("histogram_count(" + h + ")"); got != float64(d.s.Count) {
				t.Errorf("cell %s: histogram_count(%s) = %v, summary.json count %d", c.ID, d.metric, got, d.s.Count)
			}
			for _, q := range []struct {
				key string
				q   float64
			}{{"p50", 0.5}, {"p99", 0.99}} {
				got, _ := p.value(fmt.Sprintf("histogram_quantile(%g, %s)", q.q, h))
				want := d.s.P[q.key] / 1e6
				if math.Abs(got-want) > nativeResolution(want) {
					t.Errorf("cell %s: %s %s = %.2f us from Prometheus, %.2f us in summary.json: more than one bucket apart",
						c.ID, d.metric, q.key, got*1e6, want*1e6)
				} else {
					t.Logf("cell %s: %s %s: Prometheus %.2f us, summary.json %.2f us", c.ID, d.metric, q.key, got*1e6, want*1e6)
				}
			}
		}
		_, labels := p.value(`histogram_count(k6_mq_e2e_latency_seconds` + sel + ")")
		want := map[string]string{"broker": r.summary.Broker.Type, "mq_scenario": r.summary.Scenario, "testid": testid,
			"cell": c.ID, "rate": strconv.Itoa(c.Rate), "odd_name": oddTag}
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("cell %s: label %s = %q, want %q (labels %v)", c.ID, k, labels[k], v, labels)
			}
		}
		for _, k := range []string{"vu", "iter", "stat"} {
			if _, ok := labels[k]; ok {
				t.Errorf("cell %s: label %s would make a series per %s", c.ID, k, k)
			}
		}
	}
}
