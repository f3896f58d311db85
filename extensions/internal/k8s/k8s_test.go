package k8s

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

const testScenario = `name: dist
broker: { type: nats, url: "nats://nats.mq:4222" }
workload: { destination: bench, duration: 3s }
matrix:
  - { size: 256B, rate: 300 }
`

func testConfig() Config {
	return Config{ScenarioFile: "dist.yaml", ScenarioName: "dist", ScenarioYAML: []byte(testScenario),
		Runners: 3, Image: "registry.example/mqbench-k6:v1", Namespace: "bench", RunID: "dist-20250101t000000z",
		PVC: "mqbench-results", CreatePVC: true, Size: "1Gi", Separate: true, CPU: "2", Memory: "1Gi",
		StartSlack: 10 * time.Second}
}

func generate(t *testing.T, c Config) string {
	t.Helper()
	b, err := Generate(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkText decodes and checks a stream; it returns every problem as one string.
func checkText(text string) string {
	m, err := Decode([]byte(text))
	if err != nil {
		return err.Error()
	}
	return strings.Join(Check(m), "\n")
}

func TestGeneratedManifestsPassTheCheck(t *testing.T) {
	binary := []byte{0xff, 0x00, 0xfe, 'x'}
	for _, tc := range []struct {
		name   string
		change func(*Config)
	}{
		{"defaults", func(*Config) {}},
		{"two runners, existing claim, no anti-affinity", func(c *Config) { c.Runners, c.CreatePVC, c.Separate = 2, false, false }},
		{"storage class, secret, extra k6 args", func(c *Config) {
			c.StorageClass, c.EnvSecret, c.K6Args = "nfs", "broker-creds", []string{"--log-format=json", "--tag", "team=mq"}
		}},
		{"starter image", func(c *Config) { c.StarterImage = "registry.example/mqbench-k6:v1" }},
		{"reference clock", func(c *Config) { c.ClockRef = "mqbench-clock.mq.svc:7700" }},
		{"text payload", func(c *Config) { c.PayloadFile, c.Payload = "body.json", []byte(`{"a": 1}`+"\n") }},
		{"binary payload", func(c *Config) { c.PayloadFile, c.Payload = "body.bin", binary }},
		{"999 runners, longest name", func(c *Config) { c.Runners, c.RunID = 999, "a"+strings.Repeat("b", MaxNameLen(999)-1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig()
			tc.change(&c)
			text := generate(t, c)
			m, err := Decode([]byte(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if p := Check(m); len(p) > 0 {
				t.Fatalf("problems:\n%s\n%s", strings.Join(p, "\n"), text)
			}
			// What the pods see under /test is exactly what was given.
			files := m.ConfigMaps[0].Files()
			want := map[string][]byte{ScriptKey: Script, c.ScenarioFile: c.ScenarioYAML}
			if c.PayloadFile != "" {
				want[c.PayloadFile] = c.Payload
			}
			for k, v := range want {
				if !bytes.Equal(files[k], v) {
					t.Errorf("ConfigMap key %s: got %q, want %q", k, files[k], v)
				}
			}
			if len(files) != len(want) {
				t.Errorf("ConfigMap keys: got %d, want %d", len(files), len(want))
			}
			if got := len(m.PVCs) == 1; got != c.CreatePVC {
				t.Errorf("claim written: %v, want %v", got, c.CreatePVC)
			}
		})
	}
}

// Broken manifests, each a small edit of a generated one: the check must refuse each,
// naming the field.
func TestCheckRejectsBrokenManifests(t *testing.T) {
	big := testConfig()
	big.PayloadFile, big.Payload = "payload.txt", bytes.Repeat([]byte("x"), MaxConfigMapBytes)
	withSecret, withPayload := testConfig(), testConfig()
	withSecret.EnvSecret = "creds"
	withPayload.PayloadFile, withPayload.Payload = "body.bin", []byte{0xff}
	for _, tc := range []struct {
		name string
		cfg  *Config
		edit func(string) string
		want string
	}{
		{"typo paralelism", nil, replace("parallelism: 3", "paralelism: 3"), `spec.paralelism: unknown field "paralelism"`},
		{"typo volumeMount", nil, replace("    volumeMounts:", "    volumeMount:"), `spec.runner.volumeMount: unknown field`},
		{"unknown top-level field", nil, replace("kind: TestRun\n", "kind: TestRun\nstatus: {}\n"), `status: unknown field`},
		{"operator flag in args", nil, replace("  separate: true\n", "  separate: true\n  args: [\"--execution-segment=0:1/3\"]\n"), `spec.args: --execution-segment is the operator's own flag`},
		{"operator flag in arguments", nil, replace("  separate: true\n", "  separate: true\n  arguments: --paused --quiet\n"), `spec.arguments: --paused is the operator's own flag`},
		{"no setup", nil, replace("  separate: true\n", "  separate: true\n  args: [\"--no-setup\"]\n"), `spec.args: --no-setup would skip`},
		{"wrong MQ_RUNNERS", nil, replace("value: \"3\"", "value: \"4\""), `MQ_RUNNERS="4" but spec.parallelism is 3`},
		{"number for a string", nil, replace("value: \"3\"", "value: 3"), `spec.runner.env[1].value: expected a string, got int "3"`},
		{"string for a number", nil, replace("parallelism: 3", "parallelism: \"3\""), `spec.parallelism: expected an integer`},
		{"missing MQ_RUN_ID", nil, replace("      - name: MQ_RUN_ID\n        value: dist-20250101t000000z\n", ""), `spec.runner.env: MQ_RUN_ID is missing`},
		{"scenario outside /test", nil, replace("value: /test/dist.yaml", "value: /scenarios/dist.yaml"), `MQ_SCENARIO="/scenarios/dist.yaml" is not in /test`},
		{"scenario not in the ConfigMap", nil, replace("value: /test/dist.yaml", "value: /test/other.yaml"), `has no key "other.yaml"`},
		{"script imports a missing file", nil, replace("import mq from 'k6/x/mqbench';", "import mq from 'k6/x/mqbench';\n    import lib from './lib.js';"), `has no key "lib.js"`},
		{"image without tag", nil, replace("image: registry.example/mqbench-k6:v1", "image: registry.example/mqbench-k6"), `neither a tag nor a digest`},
		{"requests below limits", nil, replace("      requests:\n        cpu: \"2\"", "      requests:\n        cpu: 500m"), `cpu request "500m" differs from its limit "2"`},
		{"claim not ReadWriteMany", nil, replace("- ReadWriteMany", "- ReadWriteOnce"), `must be ReadWriteMany`},
		{"merge not suspended", nil, replace("suspend: true", "suspend: false"), `spec.suspend must be true`},
		{"merge reads another folder", nil, replace("- /results/dist/dist-20250101t000000z", "- /results/dist"), `containers[0].command`},
		{"namespaces differ", nil, replace("kind: ConfigMap\nmetadata:\n  name: dist-20250101t000000z-script\n  namespace: bench", "kind: ConfigMap\nmetadata:\n  name: dist-20250101t000000z-script\n  namespace: other"), `metadata.namespace "other" differs`},
		{"initializer image differs", nil, replace("  initializer:\n    image: registry.example/mqbench-k6:v1", "  initializer:\n    image: grafana/k6:2.1.0"), `spec.initializer.image "grafana/k6:2.1.0" differs`},
		{"starter image without tag", func() *Config { c := testConfig(); c.StarterImage = "curl:8"; return &c }(), replace("image: curl:8", "image: curl"), `spec.starter.image: "curl" has neither a tag nor a digest`},
		{"unknown kind", nil, replace("apiVersion: k6.io/v1alpha1", "apiVersion: k6.io/v1"), `is not one the generator writes`},
		{"ConfigMap over 1 MiB", &big, nil, `over the API server's limit`},
		{"merge without the Secret", &withSecret, replace("          envFrom:\n            - secretRef:\n                name: creds\n", ""), `containers[0].envFrom differs from the runners'`},
		{"merge without the payload", &withPayload, replace("            - name: script\n              mountPath: /test\n              readOnly: true\n", ""), `the merge reads the payload body.bin: mount ConfigMap`},
		{"name too long for 3 runners", func() *Config { c := testConfig(); c.RunID = "a" + strings.Repeat("b", 60); return &c }(), nil, `metadata.name:`},
		{"one runner", func() *Config { c := testConfig(); c.Runners = 1; return &c }(), nil, `spec.parallelism: 1; a distributed run needs at least 2 runners`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testConfig()
			if tc.cfg != nil {
				c = *tc.cfg
			}
			text := generate(t, c)
			if tc.edit != nil {
				edited := tc.edit(text)
				if edited == text {
					t.Fatal("the edit changed nothing: fix the test")
				}
				text = edited
			}
			got := checkText(text)
			if !strings.Contains(got, tc.want) {
				t.Fatalf("want a problem containing %q, got:\n%s", tc.want, got)
			}
		})
	}
}

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, old, new) }
}

func TestDefaultRunID(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, tc := range []struct {
		scenario string
		runners  int
		want     string
	}{
		{"nats-latency-matrix", 3, "nats-latency-matrix-20250304t050607z"},
		{"Kafka_Safe.v2", 2, "kafka-safe-v2-20250304t050607z"},
		{"2024-baseline", 2, "mq-2024-baseline-20250304t050607z"},
		{strings.Repeat("long-", 20), 1000, "long-long-long-long-long-long-lon-20250304t050607z"},
	} {
		got := DefaultRunID(tc.scenario, now, tc.runners)
		if got != tc.want {
			t.Errorf("DefaultRunID(%q, %d) = %q, want %q", tc.scenario, tc.runners, got, tc.want)
		}
		if msg := CheckRunID(got, tc.runners); msg != "" {
			t.Errorf("DefaultRunID(%q) = %q is refused: %s", tc.scenario, got, msg)
		}
	}
}

func TestNameChecks(t *testing.T) {
	for _, tc := range []struct {
		check func(string) string
		in    string
		ok    bool
	}{
		{func(s string) string { return CheckRunID(s, 3) }, "run-1", true},
		{func(s string) string { return CheckRunID(s, 3) }, "1run", false},  // Services need a letter first
		{func(s string) string { return CheckRunID(s, 3) }, "Run-1", false}, // upper case
		{func(s string) string { return CheckRunID(s, 3) }, "run_1", false}, // underscore
		{func(s string) string { return CheckRunID(s, 3) }, "run-", false},  // ends with '-'
		{func(s string) string { return CheckRunID(s, 10) }, "a" + strings.Repeat("b", 50), true},
		{func(s string) string { return CheckRunID(s, 10) }, "a" + strings.Repeat("b", 51), false},
		{CheckImage, "mqbench-k6:v1", true},
		{CheckImage, "localhost:5000/mqbench-k6:v1", true},
		{CheckImage, "ghcr.io/org/mqbench-k6@sha256:" + strings.Repeat("a", 64), true},
		{CheckImage, "localhost:5000/mqbench-k6", false},
		{CheckImage, "mqbench-k6", false},
		{CheckImage, "Mqbench:v1", false},
		{CheckQuantity, "500m", true},
		{CheckQuantity, "1.5", true},
		{CheckQuantity, "2Gi", true},
		{CheckQuantity, "2GB", false},
		{CheckQuantity, "", false},
	} {
		if msg := tc.check(tc.in); (msg == "") != tc.ok {
			t.Errorf("%q: ok=%v, got %q", tc.in, tc.ok, msg)
		}
	}
}

func TestScenarioRefs(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       Refs
	}{
		{"none", testScenario, Refs{}},
		{"payload", "workload: { payload: { content: file, file: body.bin } }", Refs{Payload: "body.bin"}},
		{"url variables", `broker: { type: kafka, url: "kafka://${USER_X}:${PASS}@h:9092/${USER_X}" }`, Refs{Env: []string{"PASS", "USER_X"}}},
		{"sasl and ca file", "broker:\n  type: kafka\n  kafka:\n    security:\n      tls: { ca_file: /etc/ca.pem }\n      sasl: { mechanism: PLAIN, username_env: KU, password_env: KP }\n",
			Refs{Env: []string{"KP", "KU"}, Files: []string{"/etc/ca.pem"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ScenarioRefs([]byte(tc.yaml))
			if got.Payload != tc.want.Payload || strings.Join(got.Env, ",") != strings.Join(tc.want.Env, ",") ||
				strings.Join(got.Files, ",") != strings.Join(tc.want.Files, ",") {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestInstructions(t *testing.T) {
	c := testConfig()
	c.EnvSecret = "creds"
	got := Instructions(c, "my run.yaml", 95*time.Second, []string{"mount /etc/ca.pem yourself"})
	for _, want := range []string{
		"manifests='my run.yaml'",
		`kubectl apply -n "$ns" -f "$manifests"`,
		`kubectl wait -n "$ns" --for=jsonpath='{.status.stage}'=finished --timeout=17m0s "testrun/$run"`,
		`kubectl patch -n "$ns" "job/$run-merge" --type=merge -p '{"spec":{"suspend":false}}'`,
		`exit "$code"`,
		"# The Secret creds",
		"# WARNING: mount /etc/ca.pem yourself",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("instructions lack %q:\n%s", want, got)
		}
	}
}
