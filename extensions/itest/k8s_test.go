package itest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/k8s"
)

// k6Run runs bin/k6 with args and exactly env (plus PATH and HOME); it returns stdout,
// stderr and the exit code.
func k6Run(t *testing.T, bin, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	r := execRun(t, cmd)
	return r.stdout, r.stderr, r.code
}

// The operator's initializer greps k6's log for this and fails the TestRun on a match.
var initializerError = regexp.MustCompile(`level.*error`)

// TestK8sInitializer generates a run's manifests with `k6 x mqbench k8s`, checks them, and
// does what the k6-operator's initializer pod would do with them: the ConfigMap's files in
// a folder standing for /test, `k6 archive` of mqbench.js with the pod's environment also
// given as -e NAME=VALUE, then `k6 inspect --execution-requirements` on the archive. The
// operator wants JSON only on stdout, no error in the log, and maxVUs >= parallelism. No
// broker is needed: nothing connects before setup().
func TestK8sInitializer(t *testing.T) {
	bin := k6Binary(t)
	scenario := filepath.Join(repoRoot(t), "extensions", "itest", "testdata", "distributed-nats.yaml")
	for _, n := range []int{2, 3} {
		t.Run(strconv.Itoa(n)+" runners", func(t *testing.T) {
			dir := t.TempDir()
			manifests := filepath.Join(dir, "run.yaml")
			_, script, code := k6Run(t, bin, dir, nil, "x", "mqbench", "k8s", scenario, "--runners", strconv.Itoa(n),
				"--image", "registry.example/mqbench-k6:itest", "--run-id", "itest-k8s", "-o", manifests)
			if code != 0 {
				t.Fatalf("k6 x mqbench k8s exited %d:\n%s", code, script)
			}
			if !strings.Contains(script, `kubectl wait -n "$ns" --for=jsonpath='{.status.stage}'=finished`) {
				t.Errorf("stderr has no run script:\n%s", script)
			}
			raw, err := os.ReadFile(manifests)
			if err != nil {
				t.Fatal(err)
			}
			m, err := k8s.Decode(raw)
			if err != nil {
				t.Fatal(err)
			}
			if p := k8s.Check(m); len(p) > 0 {
				t.Fatalf("check: %s", strings.Join(p, "\n"))
			}
			tr := m.TestRuns[0].Spec
			in := tr.Initializer
			if in == nil || in.Image != tr.Runner.Image {
				t.Fatalf("the initializer must run the runners' image: %+v", in)
			}

			// /test as the pod sees it, and an empty results root that must stay empty
			// (the initializer mounts no results volume).
			test, results := filepath.Join(dir, "test"), filepath.Join(dir, "results")
			for _, d := range []string{test, results} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, b := range m.ConfigMaps[0].Files() {
				if err := os.WriteFile(filepath.Join(test, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var env, eflags []string
			for _, e := range in.Env {
				v := e.Value
				switch e.Name {
				case "MQ_SCENARIO":
					v = filepath.Join(test, strings.TrimPrefix(v, k8s.ScriptDir+"/"))
				case "MQ_RESULTS":
					v = results
				}
				env = append(env, e.Name+"="+v)
				eflags = append(eflags, "-e", e.Name+"="+v)
			}
			archive := filepath.Join(dir, "mqbench.js.archived.tar")
			args := append(append([]string{"archive", filepath.Join(test, tr.Script.ConfigMap.File)}, eflags...), "-O", archive)
			if _, logs, code := k6Run(t, bin, dir, env, append(args, tr.Args...)...); code != 0 || initializerError.MatchString(logs) {
				t.Fatalf("k6 archive exited %d:\n%s", code, logs)
			}
			stdout, logs, code := k6Run(t, bin, dir, env, "inspect", "--execution-requirements", archive)
			if code != 0 || initializerError.MatchString(logs) {
				t.Fatalf("k6 inspect exited %d:\n%s", code, logs)
			}
			var req struct {
				MaxVUs        *int   `json:"maxVUs"`
				TotalDuration string `json:"totalDuration"`
			}
			if err := json.Unmarshal([]byte(stdout), &req); err != nil {
				t.Fatalf("k6 inspect's stdout is not JSON only (the operator parses it): %v\n%s", err, stdout)
			}
			if req.MaxVUs == nil || *req.MaxVUs < int(tr.Parallelism) {
				t.Fatalf("maxVUs %v < parallelism %d: the operator refuses the TestRun\n%s", req.MaxVUs, tr.Parallelism, stdout)
			}
			if left, _ := os.ReadDir(results); len(left) > 0 {
				t.Errorf("the initializer wrote into MQ_RESULTS (it has no results volume): %v", left)
			}
			t.Logf("%d runners: maxVUs %d, totalDuration %s", n, *req.MaxVUs, req.TotalDuration)
		})
	}
}

// A refusal is exit 111 and one line on stderr.
func TestK8sRefusesExit111(t *testing.T) {
	bin := k6Binary(t)
	root := repoRoot(t)
	abort := filepath.Join(t.TempDir(), "abort.yaml")
	if err := os.WriteFile(abort, []byte("name: abort\nbroker: { type: nats, url: \"nats://nats.mq:4222\" }\n"+
		"workload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\n"+
		"thresholds: { mq_e2e_latency: [{ threshold: \"p(99) < 1s\", abort_on_fail: true }] }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no runner", []string{filepath.Join(root, "extensions", "itest", "testdata", "distributed-nats.yaml"), "--runners", "0"}, "one runner (a plain Job) or at least 2"},
		{"embedded broker", []string{filepath.Join(root, "scenarios", "quickstart.yaml"), "--runners", "2"}, "embedded"},
		{"abort_on_fail", []string{abort, "--runners", "2"}, "abort_on_fail"},
		{"invalid scenario", []string{filepath.Join(root, "scenarios", "invalid", "many-errors.yaml"), "--runners", "2"}, "invalid scenario"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"x", "mqbench", "k8s"}, append(tc.args, "--image", "registry.example/mqbench-k6:itest")...)
			stdout, stderr, code := k6Run(t, bin, t.TempDir(), nil, args...)
			if code != 111 || stdout != "" || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want 111 and one line containing %q; stdout %q, stderr:\n%s", code, tc.want, stdout, stderr)
			}
		})
	}
}

// TestK8sSingleRunnerJob generates a one-runner run (a plain Job) and runs its container's
// command line here, as the pod would: the image's entrypoint (k6 x mqbench run) with the
// Job's args, the ConfigMap's files in a folder standing for /test and the claim's for
// /results. The run must pass and leave its results folder on the "claim".
func TestK8sSingleRunnerJob(t *testing.T) {
	bin := k6Binary(t)
	dir := t.TempDir()
	scenario := filepath.Join(dir, "k8s-single.yaml")
	if err := os.WriteFile(scenario, []byte("name: k8s-single\nbroker: { type: nats, url: embedded }\nworkload: { destination: k8s.single, warmup: 1s, duration: 2s, drain: 1s }\nmatrix: [{ size: 256B, rate: 200 }]\nthresholds: { mq_messages_lost: [\"count == 0\"] }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	manifests := filepath.Join(dir, "run.yaml")
	_, script, code := k6Run(t, bin, dir, nil, "x", "mqbench", "k8s", scenario, "--runners", "1", "--run-id", "itest-single", "-o", manifests)
	if code != 0 {
		t.Fatalf("k6 x mqbench k8s --runners 1 exited %d:\n%s", code, script)
	}
	raw, err := os.ReadFile(manifests)
	if err != nil {
		t.Fatal(err)
	}
	m, err := k8s.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if problems := k8s.CheckSingle(m); len(problems) > 0 {
		t.Fatalf("the manifests fail their check: %q", problems)
	}
	testDir, claim := filepath.Join(dir, "test"), filepath.Join(dir, "claim")
	for _, d := range []string{testDir, claim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range m.ConfigMaps[0].Files() {
		if err := os.WriteFile(filepath.Join(testDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ct := m.Jobs[0].Spec.Template.Spec.Containers[0]
	args := []string{"x", "mqbench", "run"}
	for _, a := range ct.Args {
		a = strings.Replace(a, k8s.ScriptDir, testDir, 1)
		args = append(args, strings.Replace(a, k8s.ResultsDir, claim, 1))
	}
	var env []string
	for _, e := range ct.Env {
		env = append(env, e.Name+"="+e.Value)
	}
	_, stderr, code := k6Run(t, bin, dir, env, args...)
	if code != 0 {
		t.Fatalf("the Job's command exited %d:\n%s", code, stderr)
	}
	if found, _ := filepath.Glob(filepath.Join(claim, "k8s-single", "*", "summary.json")); len(found) != 1 {
		t.Errorf("results on the claim: %v", found)
	}
}
