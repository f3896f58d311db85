package itest

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// promOutputReport is summary.json's outputs[] entry.
type promOutputReport struct {
	Name         string `json:"name"`
	URL          string `json:"url"`
	Pushes       int    `json:"pushes"`
	FailedPushes int    `json:"failed_pushes"`
	GaveUp       bool   `json:"gave_up"`
	Error        string `json:"error"`
}

// A failing Prometheus never changes a run's verdict, and the run says so once: a Prometheus
// that dies mid-run (a private one, killed once it holds the run's first points), and a URL
// Prometheus refuses (404: named, given up after three tries, not retried all run). The
// password of the output's URL appears nowhere.
func TestPrometheusOutputFailures(t *testing.T) {
	waitTurn(t, 20*time.Second)
	shared := promURL(t)
	const secret = "prom-secret-8c1e"
	scenarioFile := func(t *testing.T) string {
		file := filepath.Join(t.TempDir(), "promfail.yaml")
		yaml := "name: promfail\nbroker: { type: nats, url: embedded }\n" +
			"workload: { destination: promfail, duration: 7s, drain: 1s }\nmatrix:\n  - { size: 128B, rate: 200 }\n" +
			"thresholds: { mq_messages_lost: [\"count == 0\"] }\n"
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	check := func(t *testing.T, r run, once string) promOutputReport {
		t.Helper()
		if r.code != 0 || r.summary == nil || !r.summary.ThresholdsOK {
			t.Fatalf("exit %d: a failing output must not fail the run\n%s", r.code, r)
		}
		if n := strings.Count(r.stderr, once); n != 1 {
			t.Errorf("%q said %d times, want once\n%s", once, n, r)
		}
		var s struct {
			Outputs []promOutputReport `json:"outputs"`
		}
		decodeSummary(t, r, &s)
		raw, _ := os.ReadFile(filepath.Join(r.resultsDir, "summary.json"))
		if strings.Contains(r.stdout+r.stderr+string(raw), secret) {
			t.Errorf("the output's password was printed or written\n%s", r)
		}
		if len(s.Outputs) != 1 || s.Outputs[0].Name != "mqbench-prometheus" {
			t.Fatalf("summary.json outputs: %+v", s.Outputs)
		}
		return s.Outputs[0]
	}

	t.Run("dies mid-run", func(t *testing.T) {
		port := freePort(t)
		url, stop := startPrivatePrometheus(t, port)
		done := make(chan struct{})
		go func() { // kill it once the run's first points are in
			defer close(done)
			p := prom{t, url}
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				var res []promSeries
				if p.api("/api/v1/query", map[string][]string{"query": {`k6_mq_messages_sent_total{mq_scenario="promfail"}`}}, &res) == nil && len(res) > 0 {
					break
				}
			}
			stop()
		}()
		r := runScenario(t, scenarioFile(t), fmt.Sprintf("--out=mqbench-prometheus=http://mqbench:%s@127.0.0.1:%d/api/v1/write?pushInterval=1s", secret, port))
		<-done
		o := check(t, r, "samples are being dropped")
		if o.FailedPushes == 0 || o.Pushes <= o.FailedPushes || o.GaveUp || !strings.Contains(o.Error, fmt.Sprint(port)) {
			t.Errorf("want some pushes through, then failures naming the port: %+v", o)
		}
	})

	t.Run("refused", func(t *testing.T) {
		r := runScenario(t, scenarioFile(t), "--out=mqbench-prometheus="+strings.Replace(shared, "://", "://mqbench:"+secret+"@", 1)+"/api/v1/nothing?pushInterval=1s")
		o := check(t, r, "no more pushes this run")
		if n := strings.Count(r.stderr, "samples are being dropped"); n != 1 {
			t.Errorf("the first refusal said %d times, want once\n%s", n, r)
		}
		if !o.GaveUp || o.FailedPushes != 3 || o.Pushes != 3 || !strings.Contains(o.Error, "404") {
			t.Errorf("want three refused pushes (404), then none: %+v", o)
		}
	})
}

// startPrivatePrometheus starts Debian's prometheus on 127.0.0.1:port with a fresh TSDB (the
// shared one must stay up) and returns its URL and how to kill it (also done at cleanup).
func startPrivatePrometheus(t *testing.T, port int) (string, func()) {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("prometheus is not installed: scripts/brokers/install.sh prometheus")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(conf, []byte("global: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--web.enable-remote-write-receiver", "--enable-feature=native-histograms", "--log.level=error")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		})
	}
	t.Cleanup(stop)
	url := "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(url + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, stop
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("private Prometheus on %s not ready in 30 s", addr)
		}
	}
}
