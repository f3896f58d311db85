package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/k8s"
)

func k8sTestFlags(runners int) k8sFlags {
	return k8sFlags{runners: runners, image: "registry.example/mqbench-k6:v1", namespace: "bench", pvc: "mqbench-results",
		createPVC: true, size: "1Gi", separate: true, cpu: "1", memory: "1Gi", startSlack: 10 * time.Second}
}

var k8sNow = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// writeScenario writes a scenario file (and other files) into a temp dir.
func writeScenario(t *testing.T, name, body string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for f, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), []byte(b), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every shipped scenario that can run distributed gives manifests that pass the strict
// check, VU budgets included, for 2 and 3 runners (3 does not divide the derived budgets).
func TestK8sShippedScenarios(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "..", "scenarios", "*.yaml"))
	if len(paths) < 5 {
		t.Fatalf("found %d scenarios", len(paths))
	}
	for _, p := range append(paths, filepath.Join("..", "..", "itest", "testdata", "distributed-nats.yaml")) {
		flags := k8sTestFlags(2)
		p := withPasswordFromSecret(t, p, &flags)
		for _, n := range []int{2, 3} {
			flags.runners = n
			yml, script, err := generateK8s(p, flags, k8sNow)
			refusals := map[string]string{"quickstart.yaml": "embedded", "nats-jetstream-failover.yaml": "cannot inject faults",
				"nats-morning-peak.yaml": "stages cannot be split across runners", "nats-size-mix.yaml": "a size mix cannot be merged across runners",
				"nats-replay-day.yaml": "a replay cannot be split across runners"}
			// rate: max runs: the throughput runs (the commit-log ones included since they follow
			// the study's "as fast as possible") and the closed-loop twins.
			if b := filepath.Base(p); strings.Contains(b, "-throughput") || strings.HasSuffix(b, "-closed.yaml") {
				refusals[filepath.Base(p)] = "rate: max cannot be split across runners"
			}
			if b := filepath.Base(p); strings.HasSuffix(b, "-capacity-search.yaml") || strings.HasSuffix(b, "-search.yaml") {
				refusals[filepath.Base(p)] = "a capacity search runs one k6 per step"
			}
			if strings.HasSuffix(filepath.Base(p), "-backlog-drain.yaml") {
				refusals[filepath.Base(p)] = "backlog cannot be split across runners"
			}
			if filepath.Base(p) == "kafka-shared-distributed.yaml" && n == 2 {
				refusals[filepath.Base(p)] = "is 3 roles for 2 runners" // 2 producer runners + 1 consumer runner
			}
			if refusal, ok := refusals[filepath.Base(p)]; ok {
				if err == nil || !strings.Contains(err.Error(), refusal) {
					t.Errorf("%s: want a refusal (%s), got %v", p, refusal, err)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s, %d runners: %v", p, n, err)
				continue
			}
			if err := checkK8s(yml); err != nil {
				t.Errorf("%s, %d runners: %v", p, n, err)
			}
			// The shipped scenarios name 127.0.0.1, which on a cluster is the pod itself.
			if !strings.Contains(script, "# WARNING: broker.url names 127.0.0.1") {
				t.Errorf("%s: no loopback warning in\n%s", p, script)
			}
		}
	}
}

// literalPassword is a url's user:password@ (the shipped scenarios' local test accounts).
var literalPassword = regexp.MustCompile(`://([^:/@]+):[^@/]+@`)

// withPasswordFromSecret: a scenario whose url holds a password is refused (the ConfigMap
// would carry it); a copy reading it as ${VAR} from a Secret is returned to go on with.
func withPasswordFromSecret(t *testing.T, p string, f *k8sFlags) string {
	t.Helper()
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(k8s.LiteralSecrets(raw)) == 0 {
		return p
	}
	if _, _, err := generateK8s(p, *f, k8sNow); err == nil || !strings.Contains(err.Error(), "broker.url holds a literal password") {
		t.Errorf("%s: want the literal password refused, got %v", p, err)
	}
	cp := filepath.Join(t.TempDir(), filepath.Base(p))
	if err := os.WriteFile(cp, literalPassword.ReplaceAll(raw, []byte("://$1:$${MQ_K8S_TEST_PASS}@")), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MQ_K8S_TEST_PASS", "secret")
	f.envSecret = "broker-creds"
	return cp
}

func TestK8sRefusals(t *testing.T) {
	const ok = "name: %s\nbroker: { type: nats, url: \"nats://nats.mq:4222\" }\nworkload: { destination: d, duration: 2s%s }\nmatrix: [{ size: 256B, rate: 100 }]\n"
	scn := func(name, workloadExtra, tail string) string {
		return strings.Replace(strings.Replace(ok, "%s", name, 1), "%s", workloadExtra, 1) + tail
	}
	t.Setenv("MQ_K8S_TEST_PASS", "secret")
	for _, tc := range []struct {
		name   string
		path   func(t *testing.T) string
		change func(*k8sFlags)
		want   string // "" = accepted
	}{
		{"valid", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, nil, ""},
		{"no runner", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.runners = 0 }, "--runners 0: one runner (a plain Job) or at least 2"},
		{"no image", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.image = "" }, "--image is required"},
		{"image without tag", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.image = "mqbench-k6" }, "neither a tag nor a digest"},
		{"starter image without tag", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.starterImage = "curl" }, "--starter-image: \"curl\" has neither a tag nor a digest"},
		{"starter image", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.starterImage = "mqbench-k6:e2e" }, ""},
		{"clock ref without port", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.clockRef = "clock.mq" }, "--clock-ref \"clock.mq\": give host:port"},
		{"clock ref with a bad port", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.clockRef = "clock.mq:70000" }, `--clock-ref "clock.mq:70000": port "70000" must be a number from 1 to 65535`},
		{"clock ref", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.clockRef = "mqbench-clock.mq.svc:7700" }, ""},
		{"bad cpu", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.cpu = "two" }, "--cpu:"},
		{"bad run id", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.runID = "Run_1" }, "--run-id:"},
		{"invalid scenario", func(t *testing.T) string {
			return filepath.Join("..", "..", "..", "scenarios", "invalid", "bad-name.yaml")
		}, nil, "invalid scenario"},
		{"embedded url", func(t *testing.T) string {
			return writeScenario(t, "e", strings.Replace(scn("e", "", ""), `"nats://nats.mq:4222"`, "embedded", 1), nil)
		}, nil, "url: embedded cannot serve a distributed run"},
		{"abort_on_fail", func(t *testing.T) string {
			return writeScenario(t, "a", scn("a", "", "thresholds:\n  mq_e2e_latency:\n    - { threshold: \"p(99) < 1s\", abort_on_fail: true }\n"), nil)
		}, nil, "abort_on_fail cannot work in a distributed run"},
		{"payload in a sub-folder", func(t *testing.T) string {
			return writeScenario(t, "p", scn("p", ", payload: { content: file, file: sub/body.txt }", ""), map[string]string{"sub/body.txt": "hello"})
		}, nil, "the payload must sit beside the scenario"},
		{"payload beside the scenario", func(t *testing.T) string {
			return writeScenario(t, "p", scn("p", ", payload: { content: file, file: body.txt }", ""), map[string]string{"body.txt": "hello"})
		}, nil, ""},
		{"payload over 1 MiB", func(t *testing.T) string {
			return writeScenario(t, "p", scn("p", ", payload: { content: file, file: body.txt }", ""), map[string]string{"body.txt": strings.Repeat("x", 1<<20)})
		}, nil, "over the 1 MiB a ConfigMap may hold"},
		{"credentials without a Secret", func(t *testing.T) string {
			return writeScenario(t, "c", strings.Replace(scn("c", "", ""), "nats.mq", "u:${MQ_K8S_TEST_PASS}@nats.mq", 1), nil)
		}, nil, "reads MQ_K8S_TEST_PASS from the environment"},
		{"credentials from a Secret", func(t *testing.T) string {
			return writeScenario(t, "c", strings.Replace(scn("c", "", ""), "nats.mq", "u:${MQ_K8S_TEST_PASS}@nats.mq", 1), nil)
		}, func(f *k8sFlags) { f.envSecret = "nats-creds" }, ""},
		{"operator flag as a k6 argument", func(t *testing.T) string { return writeScenario(t, "v", scn("v", "", ""), nil) }, func(f *k8sFlags) { f.k6Args = []string{"--log-format=json", "--paused"} }, "--k6-arg: --paused is the operator's own flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := k8sTestFlags(3)
			if tc.change != nil {
				tc.change(&f)
			}
			yml, _, err := generateK8s(tc.path(t), f, k8sNow)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want == "":
				if err := checkK8s(yml); err != nil {
					t.Fatal(err)
				}
			case err == nil:
				t.Fatalf("accepted, want a refusal containing %q", tc.want)
			case !strings.Contains(err.Error(), tc.want):
				t.Fatalf("got %q, want it to contain %q", err, tc.want)
			case strings.Contains(err.Error(), "\n"):
				t.Fatalf("the refusal is not one line: %q", err)
			}
		})
	}
}

// The generated files reach the pods unchanged, and the Secret reaches runners and
// initializer alike.
func TestK8sConfigMapAndSecret(t *testing.T) {
	p := writeScenario(t, "p", "name: p\nbroker: { type: nats, url: \"nats://nats.mq:4222\" }\nworkload: { destination: d, duration: 2s, payload: { content: file, file: body.txt } }\nmatrix: [{ size: 256B, rate: 100 }]\n",
		map[string]string{"body.txt": "hello"})
	f := k8sTestFlags(2)
	f.envSecret = "creds"
	yml, _, err := generateK8s(p, f, k8sNow)
	if err != nil {
		t.Fatal(err)
	}
	m, err := k8s.Decode(yml)
	if err != nil {
		t.Fatal(err)
	}
	files := m.ConfigMaps[0].Files()
	raw, _ := os.ReadFile(p)
	if string(files["p.yaml"]) != string(raw) || string(files["body.txt"]) != "hello" || string(files["mqbench.js"]) != string(k8s.Script) {
		t.Errorf("ConfigMap files: %q", files)
	}
	s := m.TestRuns[0].Spec
	if s.Runner.EnvFrom[0].SecretRef.Name != "creds" || s.Initializer.EnvFrom[0].SecretRef.Name != "creds" {
		t.Errorf("envFrom: runner %+v, initializer %+v", s.Runner.EnvFrom, s.Initializer.EnvFrom)
	}
	if got, want := m.TestRuns[0].Metadata.Name, "p-20250102t030405z"; got != want {
		t.Errorf("run id %q, want %q", got, want)
	}
}

// One runner is a plain Job: the image's entrypoint on the scenario from the ConfigMap (no
// script in it: the image embeds it), results on a claim, run once; the default image is
// make image's; an in-process NATS server is fine, faults are not.
func TestK8sSingleRunner(t *testing.T) {
	p := writeScenario(t, "s", "name: s\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: 2s, payload: { content: file, file: body.txt } }\nmatrix: [{ size: 256B, rate: 100 }]\n",
		map[string]string{"body.txt": "hello"})
	f := k8sTestFlags(1)
	f.image, f.k6Args = "", []string{"--out", "json=/results/s.json"}
	yml, script, err := generateK8s(p, f, k8sNow)
	if err != nil {
		t.Fatal(err)
	}
	m, err := k8s.Decode(yml)
	if err != nil {
		t.Fatal(err)
	}
	if problems := k8s.CheckSingle(m); len(problems) > 0 || len(m.TestRuns) != 0 || len(m.Jobs) != 1 {
		t.Fatalf("problems %q, %d TestRuns, %d Jobs", problems, len(m.TestRuns), len(m.Jobs))
	}
	ct := m.Jobs[0].Spec.Template.Spec.Containers[0]
	for _, tc := range []struct {
		what      string
		got, want any
	}{
		{"image", ct.Image, k8s.DefaultImage},
		{"args", strings.Join(ct.Args, " "), "/test/s.yaml --results /results --out json=/results/s.json"},
		{"command", len(ct.Command), 0},
		{"backoffLimit", *m.Jobs[0].Spec.BackoffLimit, int32(0)},
		{"restartPolicy", m.Jobs[0].Spec.Template.Spec.RestartPolicy, "Never"},
		{"claim access", strings.Join(m.PVCs[0].Spec.AccessModes, ","), "ReadWriteOnce"},
		{"files", len(m.ConfigMaps[0].Files()), 2},
		{"payload", string(m.ConfigMaps[0].Files()["body.txt"]), "hello"},
	} {
		if fmt.Sprint(tc.got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: %v, want %v", tc.what, tc.got, tc.want)
		}
	}
	if !strings.Contains(script, `jsonpath='{.items[0].status.containerStatuses[0].state.terminated.exitCode}'`) || strings.Contains(script, "testrun") {
		t.Errorf("run script:\n%s", script)
	}
	faulty := writeScenario(t, "fs", "name: fs\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\nfaults: { kill: \"true\", start: \"true\", schedule: [{ at: 1s, node: any, restart_after: 500ms }] }\n", nil)
	if _, _, err := generateK8s(faulty, k8sTestFlags(1), k8sNow); err == nil || !strings.Contains(err.Error(), "injects faults") {
		t.Errorf("faults with one runner: %v", err)
	}
}

// runnerRefusals judges with the runners' variables without touching the process environment.
func TestRunnerRefusalsRestoresTheEnvironment(t *testing.T) {
	t.Setenv("MQ_RUNNERS", "7")
	os.Unsetenv("MQ_RUN_ID")
	p := writeScenario(t, "v", "name: v\nbroker: { type: nats, url: embedded }\nworkload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\n", nil)
	if _, _, err := generateK8s(p, k8sTestFlags(3), k8sNow); err == nil {
		t.Fatal("url: embedded accepted")
	}
	if v := os.Getenv("MQ_RUNNERS"); v != "7" {
		t.Errorf("MQ_RUNNERS = %q after the call, want 7", v)
	}
	if v, set := os.LookupEnv("MQ_RUN_ID"); set {
		t.Errorf("MQ_RUN_ID = %q after the call, want unset", v)
	}
}

func TestLoopbackHost(t *testing.T) {
	for in, want := range map[string]string{
		"nats://127.0.0.1:4222":                      "127.0.0.1",
		"kafka://broker-0.kafka:9092,localhost:9093": "localhost",
		"amqp://guest:guest@[::1]:5672/":             "::1",
		"redis://redis.mq.svc:6379":                  "",
		"embedded":                                   "",
	} {
		if got := loopbackHost(in); got != want {
			t.Errorf("loopbackHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// docker/Dockerfile, the one runner image (docker run, CI jobs, the k6-operator): every base
// pinned by digest, k6 built without cgo (the image has no libc), and the shell the operator's
// initializer runs (`sh -c`) with the tools it calls, beside the entrypoint docker run uses.
func TestRunnerDockerfile(t *testing.T) {
	df, err := os.ReadFile(filepath.Join("..", "..", "..", "docker", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	froms := regexp.MustCompile(`(?m)^FROM (?:--platform=\S+ )?(\S+)`).FindAllSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("FROM lines %q: want a build stage and the image", froms)
	}
	for _, m := range froms {
		if string(m[1]) != "scratch" && !regexp.MustCompile(`^[^@\s]+:[^@\s]+@sha256:[0-9a-f]{64}$`).Match(m[1]) {
			t.Errorf("FROM %s is not pinned by tag and digest", m[1])
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-o /out/usr/local/bin/k6 ./cmd/k6", "busybox-static:$TARGETARCH=",
		`ln -s busybox "/out/bin/$a"`, "PATH=/usr/local/bin:/bin", `ENTRYPOINT ["/usr/local/bin/k6", "x", "mqbench", "run"]`} {
		if !strings.Contains(string(df), want) {
			t.Errorf("docker/Dockerfile lacks %q", want)
		}
	}
	for _, tool := range []string{"sh", "grep", "mkdir", "dirname"} { // what the initializer calls
		if !regexp.MustCompile(`for a in [^;]*\b` + tool + `\b`).Match(df) {
			t.Errorf("docker/Dockerfile links no %s", tool)
		}
	}
}

// A shared destination on k8s needs the reference clock: with --clock-ref, MQ_CLOCK_REF
// reaches the runners and the initializer; without it the instructions warn that latency
// thresholds get no verdict.
func TestK8sClockRef(t *testing.T) {
	const shared = "name: s\nbroker: { type: nats, url: \"nats://nats.mq:4222\" }\n" +
		"workload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\ndistributed: { destination: shared }\n"
	p := writeScenario(t, "s", shared, nil)
	const warning = "a shared destination without --clock-ref"
	for _, ref := range []string{"", "mqbench-clock.mq.svc:7700"} {
		f := k8sTestFlags(3)
		f.clockRef = ref
		yml, script, err := generateK8s(p, f, time.Unix(0, 0))
		if err != nil {
			t.Fatalf("--clock-ref %q: %v", ref, err)
		}
		envs := strings.Count(string(yml), "name: MQ_CLOCK_REF")
		switch {
		case ref == "" && (envs != 0 || !strings.Contains(script, warning)):
			t.Errorf("no --clock-ref: %d MQ_CLOCK_REF entries (want 0), warning in the instructions: %v", envs, strings.Contains(script, warning))
		case ref != "" && (envs != 2 || !strings.Contains(string(yml), "value: "+ref) || strings.Contains(script, warning)):
			t.Errorf("--clock-ref %s: %d MQ_CLOCK_REF entries (want 2: runner and initializer), warning printed: %v", ref, envs, strings.Contains(script, warning))
		}
	}
}
