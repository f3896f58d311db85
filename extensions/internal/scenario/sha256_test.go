package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// A scenario carries the SHA-256 of its file's bytes as read (summary.json's
// scenario_sha256), before any variable is expanded; any edit, a comment included, changes it.
func TestSHA256OfTheBytesRead(t *testing.T) {
	hash := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	t.Setenv("MQBENCH_SHA_TEST_URL", "nats://127.0.0.1:4222")
	withVar := "name: t\nbroker: { type: nats, url: \"${MQBENCH_SHA_TEST_URL}\" }\nworkload: { destination: bench.t, duration: 10s }\nmatrix:\n  - { size: 1KB, rate: 100 }\n"
	dir := t.TempDir()
	for _, c := range []struct{ name, text string }{
		{"minimal", minimal},
		{"a comment more", minimal + "# tuned\n"},
		{"a variable", withVar},
	} {
		path := filepath.Join(dir, "t.yaml")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if s.SHA256 != hash(c.text) {
			t.Errorf("%s: SHA256 %q, want %q (the file's bytes)", c.name, s.SHA256, hash(c.text))
		}
	}
	if a, b := mustParse(t, minimal).SHA256, mustParse(t, minimal+"# tuned\n").SHA256; a == b {
		t.Errorf("an edited file kept its hash %s", a)
	}
}
