package schemagen

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures of scenarios/invalid/ whose problem is one of structure (an unknown key, a
// wrong type, a value outside an enumeration, a unit the parser does not read, a required
// key missing), with where the schema must say so. The others (cross-field rules, files,
// URLs, threshold expressions) are `k6 x mqbench validate`'s alone.
var structural = []struct{ file, path string }{
	{"bad-driver-option.yaml", "$.broker.nats"},
	{"bad-duration-string.yaml", "$.workload.duration"},
	{"bad-size-syntax.yaml", "$.matrix[0].size"},
	{"bad-threshold-entry.yaml", "$.thresholds.mq_messages_lost[0]"},
	{"broker-not-a-mapping.yaml", "$.broker"},
	{"consumer-rate.yaml", "$.matrix[1].consumer_rate"},
	{"distributed-roles.yaml", "$.distributed.destination"},
	{"driver-option-wrong-mode.yaml", "$.broker.redis.block"},
	{"faults.yaml", "$.faults.schedule[1]"},
	{"many-errors.yaml", "$"},
	{"missing-required.yaml", "$.workload"},
	{"not-a-mapping.yaml", "$"},
	{"options-wrong-broker.yaml", "$.broker"},
	{"pacing-unknown.yaml", "$.workload.pacing"},
	{"pattern.yaml", "$.workload.pattern"},
	{"payload-bad-values.yaml", "$.workload.payload.content"},
	{"rate-max.yaml", "$.matrix[3].rate"},
	{"rate-not-positive.yaml", "$.matrix[1].rate"},
	{"samples-unknown.yaml", "$.samples"},
	{"search.yaml", "$.search.backlog_growth"},
	{"shorthands.yaml", "$.matrix[6].burst.rate"},
	{"size-mix.yaml", "$.matrix[4].size"},
	{"stages.yaml", "$.matrix[0].stages[3]"},
	{"stamp-value.yaml", "$.workload.payload.stamp"},
	{"unknown-broker-type.yaml", "$.broker.type"},
	{"unknown-nested-key.yaml", "$.workload"},
	{"unknown-threshold-metric.yaml", "$.thresholds"},
	{"unknown-top-level-key.yaml", "$"},
	{"wrong-type.yaml", "$.validity.allow_dropped_iterations"},
}

// validatorReport is check-jsonschema's --output-format json.
type validatorReport struct {
	Status string `json:"status"`
	Errors []struct {
		Filename string `json:"filename"`
		Path     string `json:"path"`
		Message  string `json:"message"`
	} `json:"errors"`
	ParseErrors []struct {
		Filename string `json:"filename"`
		Message  string `json:"message"`
	} `json:"parse_errors"`
}

// A maintained JSON Schema validator (check-jsonschema, installed by
// scripts/test/schema-tool.sh) accepts every shipped scenario and refuses every structural
// fixture where it is wrong: one run over all the files.
func TestValidatorAgreesWithTheParser(t *testing.T) {
	root := repoRoot(t)
	tool := filepath.Join(root, ".cache", "venv-schema", "bin", "check-jsonschema")
	if _, err := os.Stat(tool); err != nil {
		msg := "check-jsonschema is not installed: run scripts/test/schema-tool.sh"
		if os.Getenv("CI") != "" || os.Getenv("MQBENCH_REQUIRE_BROKERS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	expected, err := os.ReadFile(filepath.Join(root, "scenarios", "invalid", "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	shipped := shippedScenarios(t, root)
	files := append([]string(nil), shipped...)
	for _, f := range structural {
		if !strings.Contains(string(expected), "\n"+f.file+"\t") {
			t.Fatalf("%s is not a fixture of scenarios/invalid/expected.tsv", f.file)
		}
		files = append(files, filepath.Join("scenarios", "invalid", f.file))
	}
	cmd := exec.Command(tool, append([]string{"--schemafile", Path, "--output-format", "json"}, files...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("check-jsonschema: %v", err)
	}
	var report validatorReport
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("check-jsonschema's report: %v\n%s%s", err, out, stderr.Bytes())
	}
	for _, e := range report.ParseErrors {
		t.Errorf("%s: not read: %s", e.Filename, e.Message)
	}
	found := map[string][]string{}
	for _, e := range report.Errors {
		found[e.Filename] = append(found[e.Filename], e.Path+": "+e.Message)
	}
	for _, f := range shipped {
		for _, e := range found[f] {
			t.Errorf("%s is valid, but the schema says %s", f, e)
		}
	}
	for _, f := range structural {
		t.Run(f.file, func(t *testing.T) {
			errs := found[filepath.Join("scenarios", "invalid", f.file)]
			for _, e := range errs {
				if strings.HasPrefix(e, f.path+": ") || strings.HasPrefix(e, f.path+".") || strings.HasPrefix(e, f.path+"[") || f.path == "$" {
					return
				}
			}
			t.Errorf("the schema accepts what the parser refuses at %s (schema's errors: %q)", f.path, errs)
		})
	}
}
