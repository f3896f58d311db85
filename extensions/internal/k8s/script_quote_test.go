package k8s

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
)

// The generated bash scripts (run.sh) put every value from the scenario or the flags on a
// line of its own kind: a comment stays one comment line, a value stays one quoted word.
// A newline in a warning (a CA file's name) broke out of a `# WARNING:` comment and bash ran
// the next line (finding 2): the scripts are run with bash here, and nothing injected runs.
func TestInstructionsQuoteEverything(t *testing.T) {
	evil := "x\nid>PWNED_comment\n#.pem"
	c := testConfig()
	c.EnvSecret = "creds"
	for _, tc := range []struct {
		name   string
		script func(file string) string
	}{
		{"distributed", func(file string) string {
			return Instructions(c, file, time.Minute, []string{"the scenario reads " + evil})
		}},
		{"single", func(file string) string {
			s := c
			s.Runners = 1
			return SingleInstructions(s, file, time.Minute, []string{"the scenario reads " + evil})
		}},
	} {
		dir := t.TempDir()
		// The manifests' file name is the user's -o; quoted, it stays one word.
		script := tc.script("run\n$(touch PWNED_file).yaml")
		for i, line := range strings.Split(strings.TrimSuffix(script, "\n"), "\n") {
			if strings.ContainsFunc(line, unicode.IsControl) {
				t.Errorf("%s: line %d holds a control character: %q", tc.name, i+1, line)
			}
			if strings.Contains(line, "PWNED_comment") && !strings.HasPrefix(line, "#") {
				t.Errorf("%s: line %d runs the file name: %q", tc.name, i+1, line)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "run.sh")
		cmd.Dir = dir
		// No kubectl on this PATH: the script stops at its first kubectl, after the header.
		cmd.Env = []string{"PATH=" + dir, "HOME=" + dir}
		out, _ := cmd.CombinedOutput()
		for _, f := range []string{"PWNED_comment", "PWNED_file"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s: bash run.sh ran an injected command (%s exists); output:\n%s", tc.name, f, out)
			}
		}
		if !strings.Contains(string(out), "kubectl") {
			t.Errorf("%s: the script did not reach kubectl: %s", tc.name, out)
		}
	}
}

// shellQuote's word is the exact value to bash, on one line.
func TestShellQuoteRoundTrips(t *testing.T) {
	for _, v := range []string{"plain-1.yaml", "a b", "it's", "$(id)", "`id`", "a\nb", "x\x1b[2J\t'\\\"", "é\u0085z", ""} {
		q := shellQuote(v)
		if strings.ContainsFunc(q, unicode.IsControl) {
			t.Errorf("shellQuote(%q) = %q holds a control character", v, q)
		}
		out, err := exec.Command("bash", "--noprofile", "--norc", "-c", "printf %s "+q).Output()
		if err != nil || string(out) != v {
			t.Errorf("bash reads shellQuote(%q) = %s as %q (%v)", v, q, out, err)
		}
	}
}
