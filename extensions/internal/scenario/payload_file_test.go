package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// validate refuses a payload file that is not a regular file without reading it (a FIFO
// hung validate, /dev/zero passed and then filled memory: finding 7), and any file name with
// a control character, payload.file or a broker's *_file (it reached a generated script as
// a raw newline: finding 2). The problem names the field, not the name's bytes.
func TestFileNamesAndKinds(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "body.bin"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := func(file string) string {
		return strings.Replace(minimal, "duration: 10s }", "duration: 10s, payload: { content: file, file: "+file+" } }", 1)
	}
	for _, tc := range []struct {
		name, text, field, msg string
	}{
		{"regular", payload("body.bin"), "", ""},
		{"fifo", payload("fifo"), "workload.payload.file", "is not a regular file"},
		{"device", payload("/dev/zero"), "workload.payload.file", "is not a regular file"},
		{"symlink to a device", payload("zero"), "workload.payload.file", "is not a regular file"},
		{"newline in payload.file", payload(`"x\nid>PWNED\n#.bin"`), "workload.payload.file", "control character"},
		{"newline in a broker file", strings.Replace(minimal, "type: nats }", "type: nats, nats: { credentials_file: \"x\\nid>PWNED\\n#.creds\" } }", 1), "broker.nats.credentials_file", "control character"},
		{"escape in a broker file", strings.Replace(minimal, "type: nats }", "type: nats, nats: { credentials_file: \"a\\x1b[2Jb\" } }", 1), "broker.nats.credentials_file", "control character"},
	} {
		path := filepath.Join(dir, "t.yaml")
		done := make(chan error, 1)
		go func() { _, err := Parse(path, []byte(tc.text)); done <- err }()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: validation still running after 5s", tc.name)
		}
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.field+": ") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v; want a problem at %s saying %q", tc.name, err, tc.field, tc.msg)
		}
		if err != nil && strings.Contains(err.Error(), "PWNED") {
			t.Errorf("%s: the problem quotes the file name: %v", tc.name, err)
		}
	}
}
