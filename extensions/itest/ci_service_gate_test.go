package itest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The templates' regression-gate jobs run perf/mqbench-gate.sh: the target branch's scenario
// (perf/baseline/, which the job's git step writes) and this change's, interleaved against the
// local Kafka. A change that adds 20 ms of producer linger is a regression (exit 1, JUnit says
// so); a run that cannot start ends the gate with that run's code and report.
func TestCIServiceGate(t *testing.T) {
	bin := k6Binary(t)
	gates := map[string]templateJob{}
	for name, j := range templateJobs(t) {
		if j.script == "sh perf/mqbench-gate.sh" {
			gates[name] = j
		}
	}
	if len(gates) != 2 {
		t.Fatalf("gate jobs %v: want one in each template", gates)
	}
	for _, tc := range []struct {
		job    string
		unset  bool
		code   int
		report string
	}{
		{job: "github/kafka-gate", code: 1, report: "REGRESSED beyond 10%"},
		{job: "gitlab/orders-kafka-gate", code: 1, report: "REGRESSED beyond 10%"},
		{job: "github/kafka-gate", unset: true, code: 111, report: "KAFKA_URL is not set"},
	} {
		t.Run(tc.job+"/"+map[bool]string{false: "regressed", true: "unset"}[tc.unset], func(t *testing.T) {
			j := gates[tc.job]
			dir := serviceRepo(t, false)
			scenario := filepath.Join(dir, j.env["MQBENCH_SCENARIO"])
			baseline := filepath.Join(dir, j.env["MQBENCH_GATE_BASELINE"])
			b, err := os.ReadFile(scenario)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(baseline), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(baseline, b, 0o644); err != nil { // what the git step writes
				t.Fatal(err)
			}
			slower := strings.Replace(string(b), "    idempotent: true\n", "    idempotent: true\n    linger: 20ms\n", 1)
			if slower == string(b) {
				t.Fatal("the Kafka scenario has no idempotent line to add linger after")
			}
			if err := os.WriteFile(scenario, []byte(slower), 0o644); err != nil {
				t.Fatal(err)
			}
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MQBENCH_K6=" + bin, "MQBENCH_GATE_RUNS=1",
				// The median: a second's stall on a busy machine moves one run's p99 past 20 ms
				// of linger, not its p50.
				"MQBENCH_GATE_METRICS=e2e.p50,publish.p50"}
			for k, v := range j.env {
				v = strings.NewReplacer("localhost:9092", "127.0.0.1:9092", "kafka:9092", "127.0.0.1:9092").Replace(v)
				if k == "MQBENCH_K6" || tc.unset && k == "KAFKA_URL" {
					continue
				}
				env = append(env, k+"="+v)
			}
			cmd := exec.Command("sh", "perf/mqbench-gate.sh")
			cmd.Dir, cmd.Env = dir, env
			r := execRun(t, cmd)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			junit, err := os.ReadFile(filepath.Join(dir, "mqbench-junit.xml"))
			if err != nil {
				t.Fatalf("no junit.xml where the CI reads it: %v", err)
			}
			if !strings.Contains(string(junit), "<failure") || !strings.Contains(string(junit), tc.report) {
				t.Errorf("junit.xml does not fail saying %q:\n%s", tc.report, junit)
			}
		})
	}
}
