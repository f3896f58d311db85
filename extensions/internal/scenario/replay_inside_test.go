package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A recording is read by the run: a file outside the scenario's folder, directly or through a
// symlink, is refused, and a problem with a row never quotes another file's contents.
func TestReplayFileInsideScenarioFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "perf")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"perf/day.csv": "offset_ms,size\n0,100\n2000,100\n", "secret.csv": "offset_ms,size\nCI_TOKEN=s3cr3t,1\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"up.csv": "../secret.csv", "in.csv": "day.csv"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file string
		ok   bool
	}{{"day.csv", true}, {"in.csv", true}, {"../secret.csv", false}, {filepath.Join(root, "secret.csv"), false}, {"up.csv", false}} {
		text := "name: t\nbroker: { type: nats, url: embedded }\nworkload: { destination: d }\nmatrix:\n  - { replay: { file: \"" + tc.file + "\" } }\n"
		_, err := Parse(filepath.Join(dir, "t.yaml"), []byte(text))
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s: %v", tc.file, err)
		case !tc.ok && (err == nil || !strings.Contains(err.Error(), "matrix[0].replay.file: must be in the scenario's folder")):
			t.Errorf("%s: %v; want matrix[0].replay.file refused as outside the folder", tc.file, err)
		case err != nil && strings.Contains(err.Error(), "s3cr3t"):
			t.Errorf("%s: the problem quotes the file: %v", tc.file, err)
		}
	}
}
