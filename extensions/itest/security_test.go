package itest

// Files from strangers, end to end through the real binary from an empty folder (a service's
// repository): a scenario, results folder or baseline from a pull request cannot run a
// program, read a file outside its folder or put a secret into any output. The per-package
// tests cover each rule's edges; these check that the binary applies them.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeIn writes name with text into dir and returns its path.
func writeIn(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// mqbench runs ./k6 x mqbench ARGS in dir with extra environment.
func mqbench(t *testing.T, dir string, env []string, args ...string) run {
	t.Helper()
	cmd := exec.Command("./k6", append([]string{"x", "mqbench"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "MQ_RESULTS="), env...)
	return execRun(t, cmd)
}

// noSecret fails when secret appears in the command's output or in any file under dir but
// the binary and the scenario the test wrote (input).
func noSecret(t *testing.T, r run, dir, input, secret string) {
	t.Helper()
	if strings.Contains(r.stdout+r.stderr, secret) {
		t.Errorf("the output shows %q:\n%s", secret, r)
	}
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || path == filepath.Join(dir, "k6") || path == input {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds %q", path, secret)
		}
		return nil
	})
}

// A scenario's fault commands run only with --allow-fault-commands: without it the run is
// refused (111) before anything starts, naming the command, and nothing runs; validate says
// which commands the scenario would run.
func TestSecurityFaultCommandsNeedOptIn(t *testing.T) {
	dir := emptyFolderWithBinary(t)
	pwned := filepath.Join(dir, "pwned")
	writeIn(t, dir, "faulty.yaml", `name: faulty
broker: { type: nats, url: embedded }
workload: { destination: itest.sec.faults, warmup: 1s, duration: 2s, drain: 1s }
matrix:
  - { size: 256B, rate: 100 }
faults:
  kill: /usr/bin/touch `+pwned+`
  schedule:
    - { at: 1s, node: n1 }
`)
	r := runIn(t, dir, "faulty.yaml")
	if r.code != 111 || !strings.Contains(r.stderr, "--allow-fault-commands") || !strings.Contains(r.stderr, "/usr/bin/touch") {
		t.Errorf("run without --allow-fault-commands: exit %d, want 111 naming the flag and the command\n%s", r.code, r)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Errorf("the fault command ran: %s exists", pwned)
	}
	v := mqbench(t, dir, nil, "validate", "faulty.yaml")
	if v.code != 0 || !strings.Contains(v.stdout+v.stderr, "/usr/bin/touch") {
		t.Errorf("validate: exit %d, want 0 listing the command\n%s", v.code, v)
	}
}

// A broker password never reaches the console or a results file: not when the URL does not
// parse (111), not when the broker is unreachable (112), and a secret-looking variable does
// not expand into a field that is printed (111, the variable named, not its value).
func TestSecuritySecretsNeverReachOutput(t *testing.T) {
	for _, tc := range []struct {
		name, url, extra string
		env              []string
		code             int
		secret           string
	}{
		{"unparsable url", `"nats://user:s3cr3tpw%zz@127.0.0.1:1"`, "", nil, 111, "s3cr3tpw"},
		{"unreachable", `"nats://user:s3cr3tpw@127.0.0.1:1"`, "", nil, 112, "s3cr3tpw"},
		{"secret in the description", "embedded", `description: "token=${CI_TOKEN}"` + "\n", []string{"CI_TOKEN=ghp_itestcanary"}, 111, "ghp_itestcanary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := emptyFolderWithBinary(t)
			input := writeIn(t, dir, "leak.yaml", "name: leak\n"+tc.extra+"broker: { type: nats, url: "+tc.url+` }
workload: { destination: itest.sec.leak, warmup: 1s, duration: 2s, drain: 1s }
matrix:
  - { size: 256B, rate: 100 }
`)
			r := mqbench(t, dir, tc.env, "run", "leak.yaml")
			if r.code != tc.code {
				t.Errorf("exit %d, want %d\n%s", r.code, tc.code, r)
			}
			noSecret(t, r, dir, input, tc.secret)
		})
	}
}

// A results folder from a pull request (a committed baseline) whose summary.json names a
// histogram outside the folder is refused (2) without the file's content in any output.
func TestSecurityResultsFolderStaysInside(t *testing.T) {
	dir := emptyFolderWithBinary(t)
	// What is judged here is the folder, not the run: a busy machine's dropped iterations
	// must not fail it.
	writeIn(t, dir, "base.yaml", `name: base
broker: { type: nats, url: embedded }
workload: { destination: itest.sec.base, warmup: 1s, duration: 2s, drain: 1s }
matrix:
  - { size: 256B, rate: 100 }
validity: { allow_dropped_iterations: true }
`)
	if r := runIn(t, dir, "base.yaml"); r.code != 0 {
		t.Fatalf("the baseline run: exit %d\n%s", r.code, r)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "results", "base", "*", "summary.json"))
	if len(runs) != 1 {
		t.Fatalf("want one run, found %v", runs)
	}
	var s map[string]any
	b, err := os.ReadFile(runs[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	cell := s["cells"].([]any)[0].(map[string]any)
	cell["hgrm"].(map[string]any)["e2e"] = "../../../../../../../../proc/self/environ"
	if b, err = json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	writeIn(t, filepath.Dir(runs[0]), "summary.json", string(b))
	env := []string{"MQ_ITEST_CANARY=environ-canary-7"}
	for _, args := range [][]string{
		{"compare", filepath.Dir(runs[0])},
		{"compare", "--baseline", filepath.Dir(runs[0]), "--candidate", filepath.Dir(runs[0])},
	} {
		r := mqbench(t, dir, env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "e2e") {
			t.Errorf("%v: exit %d, want 2 naming the field\n%s", args, r.code, r)
		}
		noSecret(t, r, dir, "", "environ-canary-7")
	}
}
