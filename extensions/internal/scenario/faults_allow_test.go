package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A scenario's fault commands run only when the environment opted in: a scenario file from a
// pull request must not run a program (security review, finding 1).
func TestFaultCommandsNeedOptIn(t *testing.T) {
	file := filepath.Join(t.TempDir(), "x.yaml")
	body := `name: x
broker: { type: nats, url: "nats://127.0.0.1:4222" }
workload: { destination: x, duration: 10s }
matrix: [{ size: 100B, rate: 10 }]
faults:
  kill: "/bin/sh -c id>/tmp/pwned_{node}.txt"
  start: "restart {n}"
  schedule: [{ at: 1s, node: n1, restart_after: 1s }]
`
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	want := `kill: "/bin/sh -c id>/tmp/pwned_{node}.txt", start: "restart {n}"`
	if got := sc.Faults.FaultCommands(); got != want {
		t.Errorf("FaultCommands() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		env  map[string]string
		fail bool
	}{
		{nil, true},
		{map[string]string{AllowFaultCommandsEnv: "0"}, true},
		{map[string]string{AllowFaultCommandsEnv: "yes"}, true},
		{map[string]string{AllowFaultCommandsEnv: "1"}, false},
	} {
		err := CheckFaultCommands(file, sc, func(k string) string { return tc.env[k] })
		if (err != nil) != tc.fail {
			t.Errorf("env %v: error %v, want failure %v", tc.env, err, tc.fail)
			continue
		}
		if err != nil {
			for _, part := range []string{file + ": faults:", want, "--allow-fault-commands", AllowFaultCommandsEnv + "=1"} {
				if !strings.Contains(err.Error(), part) || strings.Contains(err.Error(), "\n") {
					t.Errorf("env %v: %q does not say %q on one line", tc.env, err, part)
				}
			}
		}
	}
	noFaults := &Scenario{}
	if err := CheckFaultCommands(file, noFaults, func(string) string { return "" }); err != nil {
		t.Errorf("a scenario without faults: %v", err)
	}
}

// A node name goes into a command's arguments: one that looks like an option or holds
// spaces, quotes or control characters is refused, whether the scenario or the broker gave
// it (finding 16).
func TestValidNodeName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"n2", true}, {"2", true}, {"rabbit-1@localhost", true}, {"kafka-0.kafka.svc:9092", true},
		{"", false}, {"--help", false}, {"-n", false}, {"n 2", false}, {"n\t2", false},
		{"n2\n", false}, {"a;id", false}, {"a$(id)", false}, {"a'b", false}, {"a/b", false},
		{strings.Repeat("a", 254), false},
	} {
		if got := ValidNodeName(tc.name); got != tc.ok {
			t.Errorf("ValidNodeName(%q) = %v, want %v", tc.name, got, tc.ok)
		}
	}
}
