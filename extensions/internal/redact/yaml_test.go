package redact_test

import (
	"bytes"
	"strings"
	"testing"

	_ "github.com/mqbench/xk6-mqbench/internal/driver/all"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// A shard's copy of the scenario loses the credentials written in it and keeps the ${NAME}
// references; the merge parses the copy (scenario.Parse), so it must still be a valid
// scenario with the same cells.
func TestYAML(t *testing.T) {
	t.Setenv("MQB_T_USER", "bench")
	t.Setenv("MQB_T_NATS_PASSWORD", "from-env")
	head := "name: shardy\n# the broker\n"
	tail := "workload: { destination: d, duration: 1s }\nmatrix:\n  - { size: 64B, rate: 10 }\n  - { size: 1KB, rate: 20 }\n"
	for _, c := range []struct {
		name, broker string
		gone, kept   []string
	}{
		{"literal password", "broker:\n  type: nats\n  url: nats://user:s3cr3t%zz@127.0.0.1:4222\n",
			[]string{"s3cr3t", "user:"}, []string{"127.0.0.1:4222", "# the broker"}},
		{"token and a server list", "broker: { type: nats, url: \"nats://t0ken@h1:4222,nats://u:s3cr3t@h2:4222\" }\n",
			[]string{"t0ken", "s3cr3t"}, []string{"h1:4222", "h2:4222"}},
		{"references stay", "broker: { type: nats, url: \"nats://${MQB_T_USER}:${MQB_T_NATS_PASSWORD}@h:4222\" }\n",
			nil, []string{"${MQB_T_USER}:${MQB_T_NATS_PASSWORD}@h:4222"}},
		{"mixed: literal user, password from the environment", "broker: { type: redis, url: \"redis://admin:${MQB_T_NATS_PASSWORD}@h:6379/0\" }\n",
			[]string{"admin"}, []string{"${MQB_T_NATS_PASSWORD}@h:6379"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := []byte(head + c.broker + tail)
			got, err := redact.YAML(raw)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.gone {
				if bytes.Contains(got, []byte(s)) {
					t.Errorf("%q kept in\n%s", s, got)
				}
			}
			for _, s := range c.kept {
				if !bytes.Contains(got, []byte(s)) {
					t.Errorf("%q lost from\n%s", s, got)
				}
			}
			sc, err := scenario.Parse("shardy.yaml", got)
			if err != nil {
				t.Fatalf("the copy does not parse: %v\n%s", err, got)
			}
			if len(sc.Cells) != 2 {
				t.Errorf("cells: %d, want 2", len(sc.Cells))
			}
		})
	}
	// Secret query values and credential keys, wherever they are (not parsed: no driver has them).
	got, err := redact.YAML([]byte("x:\n  monitor_url: http://h:1/?token=hunter2&db=${MQB_T_USER}&key=${K}\n  password: pw-lit\n  token: ${TOK}\n"))
	if err != nil || bytes.Contains(got, []byte("hunter2")) || bytes.Contains(got, []byte("pw-lit")) || !bytes.Contains(got, []byte("key=${K}")) || !bytes.Contains(got, []byte("token: ${TOK}")) {
		t.Errorf("query and keys: %v\n%s", err, got)
	}
	clean := []byte(head + "broker: { type: nats, url: \"nats://h:4222\" }\n" + tail)
	if got, _ := redact.YAML(clean); !bytes.Equal(got, clean) {
		t.Errorf("a file without credentials changed:\n%s", got)
	}
	if _, err := redact.YAML([]byte("a: [")); err == nil || strings.Contains(err.Error(), "[") {
		t.Errorf("bad YAML: %v", err)
	}
}
