package payload

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A payload file is a regular file, read no further than the body size needs: /dev/zero
// would fill memory, a FIFO would hang the run, a huge file would be read whole (finding 7).
func TestPayloadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero-link")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, err string
	}{
		{"regular", small, ""},
		{"fifo", fifo, "not a regular file"},
		{"device", "/dev/zero", "not a regular file"},
		{"symlink to a device", link, "not a regular file"},
		{"folder", dir, "is a directory"},
		{"missing", filepath.Join(dir, "nope"), "no such file"},
		{"empty", empty, "is empty"},
	} {
		done := make(chan struct{})
		var s *Source
		var err error
		go func() { s, err = New(Spec{Content: "file", File: tc.path}, 8); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: New still reading after 5s", tc.name)
		}
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && !bytes.Equal(s.Next(), []byte("abcabcab")):
			t.Errorf("%s: body %q, want the file repeated to 8 bytes", tc.name, s.Next())
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.err)
		case err != nil && !strings.Contains(err.Error(), tc.path):
			t.Errorf("%s: error %q does not name the file", tc.name, err)
		}
	}
}

// A 256 MiB (sparse) payload file for 1 KB bodies: the source reads about 1 KB of it.
func TestPayloadFileReadsOnlyTheBodySize(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := New(Spec{Content: "file", File: big}, 1000)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Next()) != 1000 {
		t.Errorf("body of %d bytes, want 1000", len(s.Next()))
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("New allocated %d bytes for 1000-byte bodies: it read the file whole", got)
	}
}
