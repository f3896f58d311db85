package cmd

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.k6.io/k6/v2/cmd/state"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// A scenario from a pull request, turned into manifests and a run script by k8s: nothing in
// it runs on the machine that runs the script (finding 2), the ConfigMap holds only regular
// files from the scenario's folder (finding 8), and no literal password reaches the
// ConfigMap (finding 15). Every refusal is one line naming the field, never its value.
func TestK8sUntrustedScenario(t *testing.T) {
	const base = "name: %s\nbroker: { type: nats, url: \"nats://nats.mq:4222\" }\nworkload: { destination: d, duration: 2s%s }\nmatrix: [{ size: 256B, rate: 100 }]\n"
	scn := func(name, url, workloadExtra string) string {
		s := strings.Replace(strings.Replace(base, "%s", name, 1), "%s", workloadExtra, 1)
		if url != "" {
			s = strings.Replace(s, "nats://nats.mq:4222", url, 1)
		}
		return s
	}
	outside := filepath.Join(t.TempDir(), "outside.bin")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := ", payload: { content: file, file: body.bin }"
	for _, tc := range []struct {
		name   string
		path   func(t *testing.T) string
		want   string // "" = accepted
		banned string // never in the refusal
	}{
		{"newline in a CA file's name", func(t *testing.T) string {
			evil := "x\nid>PWNED\n#.pem"
			s := "name: k\nbroker: { type: kafka, url: \"kafka.mq:9092\", kafka: { security: { tls: { ca_file: \"x\\nid>PWNED\\n#.pem\" } } } }\nworkload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\n"
			return writeScenario(t, "k", s, map[string]string{evil: "pem"})
		}, "broker.kafka.security.tls.ca_file: a file name must not contain a control character", "PWNED"},
		{"payload symlink to /proc/self/environ", func(t *testing.T) string {
			p := writeScenario(t, "p", scn("p", "", payload), nil)
			symlink(t, "/proc/self/environ", filepath.Join(filepath.Dir(p), "body.bin"))
			return p
		}, "workload.payload.file", "environ"},
		{"payload symlink out of the folder", func(t *testing.T) string {
			p := writeScenario(t, "p", scn("p", "", payload), nil)
			symlink(t, outside, filepath.Join(filepath.Dir(p), "body.bin"))
			return p
		}, "workload.payload.file: must be in the scenario's folder", "outside"},
		{"payload symlink inside the folder", func(t *testing.T) string {
			p := writeScenario(t, "p", scn("p", "", payload), map[string]string{"data/real.bin": "hello"})
			symlink(t, filepath.Join("data", "real.bin"), filepath.Join(filepath.Dir(p), "body.bin"))
			return p
		}, "", ""},
		{"password in the url", func(t *testing.T) string {
			return writeScenario(t, "u", scn("u", "nats://bench:hunter2@nats.mq:4222", ""), nil)
		}, "broker.url holds a literal password", "hunter2"},
		{"password in a url of a list", func(t *testing.T) string {
			return writeScenario(t, "u", scn("u", "nats://nats-0.mq:4222,nats://bench:hunter2@nats-1.mq:4222", ""), nil)
		}, "broker.url holds a literal password", "hunter2"},
		{"password as a url parameter", func(t *testing.T) string {
			s := "name: u\nbroker: { type: postgres, url: \"postgres://bench@pg.mq:5432/db?sslmode=require&password=hunter2\" }\nworkload: { destination: d, duration: 2s }\nmatrix: [{ size: 256B, rate: 100 }]\n"
			return writeScenario(t, "u", s, nil)
		}, "broker.url holds a literal password", "hunter2"},
		{"user without a password", func(t *testing.T) string {
			return writeScenario(t, "u", scn("u", "nats://bench@nats.mq:4222", ""), nil)
		}, "", ""},
	} {
		for _, runners := range []int{1, 3} {
			_, script, err := generateK8s(tc.path(t), k8sTestFlags(runners), k8sNow)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s, %d runners: refused: %v", tc.name, runners, err)
			case tc.want == "":
				runScript(t, tc.name, script)
			case err == nil:
				t.Errorf("%s, %d runners: accepted, want a refusal saying %q", tc.name, runners, tc.want)
			case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.banned) || strings.Contains(err.Error(), "\n"):
				t.Errorf("%s, %d runners: got %q; want one line saying %q, without %q", tc.name, runners, err, tc.want, tc.banned)
			}
		}
	}
	// Through the command: exit 111, the refusal alone on stderr.
	gs := state.NewGlobalState(context.Background())
	var stderr bytes.Buffer
	gs.Stderr.Writer = &stderr
	code := -1
	gs.OSExit = func(c int) { code = c }
	root := New(gs)
	root.SetArgs([]string{"k8s", writeScenario(t, "u", scn("u", "nats://bench:hunter2@nats.mq:4222", ""), nil), "--runners", "1"})
	_ = root.Execute()
	if code != exitcode.InvalidScenario || strings.Contains(stderr.String(), "hunter2") || !strings.Contains(stderr.String(), "${VAR}") {
		t.Errorf("k8s with a password in the url: exit %d, stderr %q; want 111 saying to use ${VAR}, without the password", code, stderr.String())
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// runScript runs a generated run script with bash where there is no kubectl: it must stop
// at its first kubectl having run nothing else.
func runScript(t *testing.T, name, script string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "--noprofile", "--norc", "run.sh")
	cmd.Dir, cmd.Env = dir, []string{"PATH=" + dir, "HOME=" + dir}
	out, _ := cmd.CombinedOutput()
	if left, _ := os.ReadDir(dir); len(left) != 1 || !strings.Contains(string(out), "kubectl: command not found") {
		t.Errorf("%s: bash run.sh left %d files and said %s", name, len(left), out)
	}
}
