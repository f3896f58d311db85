package childrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A child's exit code, its signal as 128 + the signal, and its stderr's tail reach the Outcome.
func TestRunOutcome(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body string
		code       int
		stderr     string
	}{
		{"passes", "exit 0", 0, ""},
		{"thresholds", "echo 'threshold failed' >&2; exit 99", 99, "threshold failed"},
		{"killed", "kill -KILL $$", 128 + 9, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k6 := filepath.Join(dir, tc.name+".sh")
			if err := os.WriteFile(k6, []byte("#!/bin/sh\necho \"$@\"\n"+tc.body+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(dir, tc.name+".log")
			out, err := Run(Child{K6: k6, File: "s.yaml", Results: "res", Args: []string{"-e", "A=1"}, Log: log})
			if err != nil {
				t.Fatal(err)
			}
			if out.ExitCode != tc.code || strings.TrimSpace(out.Stderr) != tc.stderr || out.MaxRSSKB <= 0 {
				t.Errorf("outcome %+v, want code %d, stderr %q", out, tc.code, tc.stderr)
			}
			// --results comes last, so it wins over one among the caller's flags.
			if b, _ := os.ReadFile(log); !strings.HasPrefix(string(b), "x mqbench run s.yaml -q -e A=1 --results res\n") {
				t.Errorf("log %q", b)
			}
		})
	}
	if _, err := Run(Child{K6: filepath.Join(dir, "none"), Log: filepath.Join(dir, "none.log")}); err == nil {
		t.Error("no binary: no error")
	}
}
