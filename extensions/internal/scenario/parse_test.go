package scenario

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/driver/natsdrv"

	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

const minimal = `name: t
broker: { type: nats }
workload: { destination: bench.t, duration: 10s }
matrix:
  - { size: 1KB, rate: 100 }
`

func mustParse(t *testing.T, text string) *Scenario {
	t.Helper()
	s, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func problems(t *testing.T, text string) []string {
	t.Helper()
	_, err := Parse("t.yaml", []byte(text))
	var e *Errors
	if !errors.As(err, &e) {
		t.Fatalf("Parse error = %v, want *Errors", err)
	}
	var out []string
	for _, p := range e.Problems {
		out = append(out, p.String())
	}
	return out
}

func TestDefaults(t *testing.T) {
	s := mustParse(t, minimal)
	w := s.Workload
	if w.Producers != 1 || w.Consumers != 1 || w.Batch != 1 || w.Warmup != 0 || w.Drain != 2*time.Second ||
		w.Payload.Content != "random" || w.Payload.Key != "none" || w.VUs != 0 || w.MaxVUs != 0 {
		t.Errorf("workload defaults = %+v", w)
	}
	if s.Broker.URL != "nats://127.0.0.1:4222" {
		t.Errorf("default url = %q", s.Broker.URL)
	}
	opts, ok := s.Broker.Options.(*natsdrv.Options)
	if !ok || opts.Mode != "core" {
		t.Errorf("options = %#v, want defaulted *natsdrv.Options", s.Broker.Options)
	}
	c := s.Cells[0]
	if c.ID != "c1" || c.Size != 1024 || c.SizeLabel != "1KB" || c.Rate != 100 || c.Duration != 10*time.Second || c.Drain != 2*time.Second {
		t.Errorf("cell = %+v", c)
	}
	if s.Validity.AllowDroppedIterations {
		t.Error("dropped iterations allowed by default")
	}
}

func TestOverridesOptionsAndThresholds(t *testing.T) {
	s := mustParse(t, `name: t
description: everything set
broker:
  type: nats
  url: embedded
  nats: { mode: jetstream, storage: memory, ack_timeout: 2s }
workload:
  destination: bench.t
  producers: 2
  consumers: 0
  payload: { content: zeros, key: round-robin }
  batch: 5
  warmup: 1s
  duration: 1m30s
  drain: 0s
  vus: 10
  max_vus: 20
matrix:
  - { name: burst, size: 1024, rate: 20000, producers: 25, batch: 10, warmup: 0, duration: 5s, drain: 1s, vus: 50, max_vus: 100,
      thresholds: { "mq_publish_latency{cell:burst}": ["p(99) < 20ms"] } }
thresholds:
  mq_publish_latency: [{ threshold: "p(95) < 2ms", abort_on_fail: true, delay_abort_eval: 10s }]
  dropped_iterations: ["count == 0"]
validity:
  allow_dropped_iterations: true
`)
	opts := s.Broker.Options.(*natsdrv.Options)
	if opts.Mode != "jetstream" || opts.Storage != "memory" || opts.AckTimeout != 2*time.Second || opts.Replicas != 1 {
		t.Errorf("options = %+v", opts)
	}
	want := Cell{ID: "burst", Size: 1024, SizeLabel: "1024B", Rate: 20000, Producers: 25, Consumers: 0, Batch: 10,
		Warmup: 0, Duration: 5 * time.Second, Drain: time.Second, VUs: 50, MaxVUs: 100,
		Thresholds: []Threshold{{Metric: "mq_publish_latency{cell:burst}", Line: 20,
			Expressions: []Expression{{Source: "p(99) < 20ms", Expr: threshold.MustK6("p(99)<20")}}}}}
	if !reflect.DeepEqual(s.Cells[0], want) {
		t.Errorf("cell\n got %+v\nwant %+v", s.Cells[0], want)
	}
	wantTh := []Threshold{
		{Metric: "mq_publish_latency", Line: 22, Expressions: []Expression{{Source: "p(95) < 2ms", Expr: threshold.MustK6("p(95)<2"), AbortOnFail: true, DelayAbortEval: "10s"}}},
		{Metric: "dropped_iterations", Line: 23, Expressions: []Expression{{Source: "count == 0", Expr: threshold.MustK6("count==0")}}},
	}
	if !reflect.DeepEqual(s.Thresholds, wantTh) {
		t.Errorf("thresholds\n got %+v\nwant %+v", s.Thresholds, wantTh)
	}
	if !s.Validity.AllowDroppedIterations || s.Workload.Drain != 0 || s.Workload.Consumers != 0 || s.Workload.Payload.Key != "round-robin" {
		t.Errorf("scenario = %+v", s)
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in    string
		bytes int
		label string
		err   string
	}{
		{"256", 256, "256B", ""},
		{"256B", 256, "256B", ""},
		{"1KB", 1024, "1KB", ""},
		{"1.5KB", 1536, "1.5KB", ""},
		{"64KiB", 65536, "64KiB", ""},
		{"2MiB", 2 << 20, "2MiB", ""},
		{"1 MB", 1 << 20, "1 MB", ""},
		{"64MB", 64 << 20, "64MB", ""},
		{"36B", 36, "36B", ""},
		{"35", 35, "35B", ""},
		{"12", 12, "12B", ""},
		{"11", 0, "", "11B is smaller than the 12-byte compact mqbench header"},
		{"64.1MB", 0, "", "64.1MB exceeds the 64MB limit"},
		{"99999999999999999999", 0, "", "exceeds the 64MB limit"},
		{"1e3", 0, "", "expected a size"},
		{"1.1B", 0, "", "not a whole number of bytes"},
		{"[1]", 0, "", "got a list"},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(c.in), &n); err != nil {
			t.Fatal(err)
		}
		b, label, msg := parseSize(n.Content[0])
		if b != c.bytes || label != c.label || (c.err == "") != (msg == "") || !strings.Contains(msg, c.err) {
			t.Errorf("parseSize(%s) = %d, %q, %q; want %d, %q, %q", c.in, b, label, msg, c.bytes, c.label, c.err)
		}
	}
}

func TestMergeKeysAndAnchors(t *testing.T) {
	s := mustParse(t, `name: t
broker: { type: nats }
workload: { destination: bench.t, duration: 10s }
matrix:
  - &base { size: 1KB, rate: 100, producers: 2 }
  - { <<: *base, rate: 200 }
  - *base
`)
	if len(s.Cells) != 3 || s.Cells[1].Rate != 200 || s.Cells[1].Producers != 2 || s.Cells[1].Size != 1024 || s.Cells[2].Rate != 100 {
		t.Errorf("cells = %+v", s.Cells)
	}
}

func TestAliasExpansionIsBounded(t *testing.T) {
	// 1000 cells × 200 threshold keys × 200 expressions, all through aliases: a few KB of
	// YAML that would be 40 million expressions if expanded naively ("billion laughs").
	var b strings.Builder
	b.WriteString("name: t\nbroker: { type: nats }\nworkload: { destination: d, duration: 1s }\ne: &e [")
	for i := 0; i < 200; i++ {
		b.WriteString(`"p(99) < 5ms", `)
	}
	b.WriteString("]\nth: &t {")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "\"mq_e2e_latency{cell:c%d}\": *e, ", i)
	}
	b.WriteString("}\nc: &c { size: 1KB, rate: 1, thresholds: *t }\nmatrix: [")
	for i := 0; i < 1000; i++ {
		b.WriteString("*c, ")
	}
	b.WriteString("]\n")
	done := make(chan []string, 1)
	go func() { done <- problems(t, b.String()) }()
	select {
	case ps := <-done:
		if !strings.Contains(strings.Join(ps, "\n"), "document too large") {
			t.Fatalf("problems: %q", ps)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("alias expansion not bounded")
	}
}

func TestSelfMergingAnchor(t *testing.T) {
	ps := problems(t, "name: t\nbroker: &b { type: nats, <<: *b }\n")
	if len(ps) == 0 {
		t.Fatal("no problems")
	}
}

func TestErrorFormat(t *testing.T) {
	_, err := Parse("scenarios/foo.yaml", []byte("name: foo\nbroker: { type: natz }\nworkload: { destination: d, durration: 30s }\nmatrix: [{ size: 8B, rate: 1 }]\n"))
	want := `invalid scenario scenarios/foo.yaml (4 problems):
  - scenarios/foo.yaml:2:17: broker.type: unknown broker type "natz" (valid: amqp10, kafka, mongodb, mqtt, nats, nsq, postgres, pulsar, rabbitmq, redis, rocketmq, sqs, zeromq)
  - scenarios/foo.yaml:3:1: workload.duration: required
  - scenarios/foo.yaml:3:29: workload.durration: unknown field (did you mean "duration"?)
  - scenarios/foo.yaml:4:18: matrix[0].size: 8B is smaller than the 12-byte compact mqbench header`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
	one := &Errors{File: "x.yaml", Problems: []Problem{{File: "x.yaml", Msg: "empty scenario file"}}}
	if got := one.Error(); got != "invalid scenario x.yaml (1 problem):\n  - x.yaml: empty scenario file" {
		t.Errorf("single problem: %q", got)
	}
}

func TestFileLevelProblems(t *testing.T) {
	for text, want := range map[string]string{
		"":                      "t.yaml:1: empty scenario file",
		"# only a comment":      "t.yaml:1: empty scenario file",
		"name: [":               "t.yaml:1: invalid YAML: did not find expected node content",
		"---\n":                 "t.yaml:2:1: expected a mapping of scenario fields (name, broker, workload, matrix, …), got nothing (null)",
		"name: t\n!!int 3: x\n": "",
	} {
		ps := problems(t, text)
		if want != "" && (len(ps) != 1 || ps[0] != want) {
			t.Errorf("%q: problems %q, want %q", text, ps, want)
		}
	}
}

func TestStdinSkipsStemCheck(t *testing.T) {
	if _, err := Parse("", []byte(strings.Replace(minimal, "name: t", "name: anything", 1))); err != nil {
		t.Fatal(err)
	}
	_, err := Parse("", []byte("name: x\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid scenario <input> (") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.yaml"))
	var e *Errors
	if !errors.As(err, &e) || len(e.Problems) != 1 || !strings.Contains(e.Problems[0].Msg, "no such file") {
		t.Errorf("err = %v", err)
	}
}

// A payload file is found next to the scenario, wherever the tool runs from.
func TestPayloadFileRelativeToScenario(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "body.bin"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(minimal, "duration: 10s }", "duration: 10s, payload: { content: file, file: body.bin } }", 1)
	path := filepath.Join(dir, "t.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.Payload.File != filepath.Join(dir, "body.bin") {
		t.Errorf("payload file = %q", s.Workload.Payload.File)
	}
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = Parse(path, []byte(strings.Replace(text, "body.bin", "d", 1)))
	if err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory as payload: %v", err)
	}
}

// The generic decoder on a struct of every supported kind.
func TestDecoderKinds(t *testing.T) {
	type inner struct {
		A int `yaml:"a"`
	}
	type embedded struct {
		E string `yaml:"e"`
	}
	type all struct {
		embedded `yaml:",inline"`
		S        string         `yaml:"s"`
		B        bool           `yaml:"b"`
		I8       int8           `yaml:"i8"`
		U        uint16         `yaml:"u"`
		F        float32        `yaml:"f"`
		D        time.Duration  `yaml:"d"`
		P        *inner         `yaml:"p"`
		M        map[string]int `yaml:"m"`
		L        []string       `yaml:"l"`
		Untagged int
		Skip     int               `yaml:"-"`
		rest     map[string]string //lint:ignore U1000 present to show unexported fields are ignored
	}
	var n yaml.Node
	src := "e: x\ns: str\nb: true\ni8: -8\nu: 0x10\nf: 1.5\nd: 1m30s\np: {a: 1}\nm: {x: 1, y: 2}\nl: [a, b]\nuntagged: 7\n"
	if err := yaml.Unmarshal([]byte(src), &n); err != nil {
		t.Fatal(err)
	}
	d := newDecoder("k.yaml")
	var v all
	d.decode(n.Content[0], reflect.ValueOf(&v).Elem(), "")
	if len(d.problems) != 0 {
		t.Fatalf("problems: %+v", d.problems)
	}
	want := all{embedded: embedded{"x"}, S: "str", B: true, I8: -8, U: 16, F: 1.5, D: 90 * time.Second,
		P: &inner{1}, M: map[string]int{"x": 1, "y": 2}, L: []string{"a", "b"}, Untagged: 7}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("got %+v\nwant %+v", v, want)
	}

	bad := "s: 1\nb: 1\ni8: 300\nu: -1\nf: x\nd: 5\np: [1]\nm: {x: y}\nl: {a: b}\nskip: 1\nm2: 0\n"
	if err := yaml.Unmarshal([]byte(bad), &n); err != nil {
		t.Fatal(err)
	}
	d = newDecoder("k.yaml")
	d.decode(n.Content[0], reflect.ValueOf(&all{}).Elem(), "")
	var got []string
	for _, p := range d.problems {
		got = append(got, p.String())
	}
	wantProblems := []string{
		`k.yaml:1:4: s: expected a string, got integer 1 (quote it to make it a string)`,
		`k.yaml:2:4: b: expected a boolean (true or false), got integer 1`,
		`k.yaml:3:5: i8: integer 300 is out of range`,
		`k.yaml:4:4: u: integer -1 is out of range`,
		`k.yaml:5:4: f: expected a number, got string "x"`,
		`k.yaml:6:4: d: expected a duration with a unit, like 30s or 250ms, got 5`,
		`k.yaml:7:4: p: expected a mapping, got a list`,
		`k.yaml:8:8: m.x: expected an integer, got string "y"`,
		`k.yaml:9:4: l: expected a list, got a mapping`,
		`k.yaml:10:1: skip: unknown field (valid: e, s, b, i8, u, f, d, p, m, l, untagged)`,
		`k.yaml:11:1: m2: unknown field (did you mean "m"?)`,
	}
	if !reflect.DeepEqual(got, wantProblems) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantProblems, "\n"))
	}
}

func TestClosest(t *testing.T) {
	for in, want := range map[string]string{
		"durration": "duration", "maxVus": "max_vus", "max-vus": "max_vus", "treshold": "thresholds",
		"foo": "", "x": "", "kafka": "",
	} {
		if got := closest(in, []string{"duration", "max_vus", "thresholds", "url", "type", "nats"}); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

// Credentials come from the environment: ${NAME} in the url is expanded, an unset name is
// an error naming it (and never its value).
func TestURLFromEnvironment(t *testing.T) {
	t.Setenv("MQB_TEST_PASS", "s3cret")
	doc := func(url string) []byte {
		return []byte("name: envurl\nbroker:\n  type: redis\n  url: " + url + "\nworkload: { destination: d, duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n")
	}
	sc, err := Parse("envurl.yaml", doc("redis://:${MQB_TEST_PASS}@127.0.0.1:6379"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Broker.URL != "redis://:s3cret@127.0.0.1:6379" {
		t.Errorf("url = %q", sc.Broker.URL)
	}
	_, err = Parse("envurl.yaml", doc("redis://:${MQB_TEST_UNSET_VAR}@127.0.0.1:6379"))
	if err == nil || !strings.Contains(err.Error(), "envurl.yaml:4:8: broker.url: environment variable MQB_TEST_UNSET_VAR is not set") {
		t.Errorf("unset variable: %v", err)
	}
}

// A cell can be sized in messages: its measured duration is messages / rate.
func TestMessagesSetDuration(t *testing.T) {
	cases := []struct {
		cell string
		dur  time.Duration
		err  string
	}{
		{"{ size: 12B, rate: 20000, messages: 1000000 }", 50 * time.Second, ""},
		{"{ size: 1KB, rate: 3, messages: 10 }", 3334 * time.Millisecond, ""},
		{"{ size: 1KB, rate: 100, messages: 50 }", 0, "matrix[0].messages: 50 messages at 100/s last 500ms, less than the 1s minimum"},
		{"{ size: 1KB, rate: 100, messages: 500, duration: 5s }", 0, "matrix[0].messages: set duration or messages, not both"},
		{"{ size: 1KB, rate: 100, messages: 0 }", 0, "matrix[0].messages: must be between 1 and 1000000000, got 0"},
	}
	for _, c := range cases {
		doc := "name: m\nbroker: { type: nats }\nworkload: { destination: d, duration: 30s }\nmatrix:\n  - " + c.cell + "\n"
		sc, err := Parse("m.yaml", []byte(doc))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.cell, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.cell, err)
			continue
		}
		if sc.Cells[0].Duration != c.dur {
			t.Errorf("%s: duration %v, want %v", c.cell, sc.Cells[0].Duration, c.dur)
		}
	}
}

// ${VAR} expands in any scalar value, quoted or not, and the value is validated as if it had
// been written there.
func TestEnvInAnyValue(t *testing.T) {
	t.Setenv("MQB_T_RATE", "2500")
	t.Setenv("MQB_T_STAGE", "staging")
	t.Setenv("MQB_T_DUR", "45s")
	t.Setenv("MQB_T_NUMERIC", "123")
	t.Setenv("MQB_T_BAD_RATE", "fast")
	src := `name: env
broker: { type: nats, url: embedded }
workload:
  destination: orders.${MQB_T_STAGE}
  duration: ${MQB_T_DUR}
matrix:
  - { size: 256B, rate: "${MQB_T_RATE}" }
  - size: 1KB
    rate: ${MQB_T_RATE}
`
	sc, err := Parse("env.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Workload.Destination != "orders.staging" || sc.Cells[0].Rate != 2500 || sc.Cells[1].Rate != 2500 || sc.Cells[0].Duration != 45*time.Second {
		t.Errorf("destination %q rate %d/%d duration %v", sc.Workload.Destination, sc.Cells[0].Rate, sc.Cells[1].Rate, sc.Cells[0].Duration)
	}
	// A string field takes a value that looks like a number.
	sc, err = Parse("env.yaml", []byte(strings.Replace(src, "orders.${MQB_T_STAGE}", "${MQB_T_NUMERIC}", 1)))
	if err != nil || sc.Workload.Destination != "123" {
		t.Errorf("numeric destination: %v", err)
	}
	// An expanded value that is wrong for its field is reported like a written one.
	_, err = Parse("env.yaml", []byte(strings.Replace(src, `rate: "${MQB_T_RATE}"`, `rate: "${MQB_T_BAD_RATE}"`, 1)))
	if err == nil || !strings.Contains(err.Error(), `env.yaml:7:25: matrix[0].rate: expected messages per second (like 3000) or max, got "fast"`) {
		t.Errorf("bad expanded rate: %v", err)
	}
}
