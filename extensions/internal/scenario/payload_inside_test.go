package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A payload is sent to the broker the scenario names: a file outside the scenario's folder,
// directly or through a symlink, is refused (a scenario from a pull request could otherwise
// send /proc/self/environ or a credentials file to a broker of its choosing).
func TestPayloadFileInsideScenarioFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "perf")
	for _, d := range []string{dir, filepath.Join(dir, "data")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"perf/body.bin": "x", "perf/data/b.bin": "y", "secret.txt": "CI_TOKEN=s3cr3t"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"env": "/proc/self/environ", "up": "../secret.txt", "in": "data/b.bin"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file string
		ok   bool
	}{
		{"body.bin", true},
		{"data/b.bin", true},
		{"in", true}, // a link that stays inside
		{"../secret.txt", false},
		{filepath.Join(root, "secret.txt"), false},
		{"up", false},
		{"env", false},
	} {
		text := strings.Replace(minimal, "duration: 10s }", "duration: 10s, payload: { content: file, file: \""+tc.file+"\" } }", 1)
		_, err := Parse(filepath.Join(dir, "t.yaml"), []byte(text))
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.file, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), "workload.payload.file: must be in the scenario's folder")):
			t.Errorf("%s: %v; want workload.payload.file refused as outside the folder", tc.file, err)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("%s: the problem quotes the file: %v", tc.file, err)
		}
	}
}
