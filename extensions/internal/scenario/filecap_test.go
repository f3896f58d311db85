package scenario

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A scenario file over MaxFileSize is refused with one problem naming the file and the cap,
// from its size alone (a sparse 64 MiB file takes no time) or once reading passes the cap (a
// device that never ends); a file of exactly the cap loads.
func TestFileSizeCap(t *testing.T) {
	padded := func(n int) []byte { // minimal, then comment lines up to n bytes
		b := []byte(strings.Replace(minimal, "name: t", "name: big", 1))
		for len(b) < n {
			line := "# " + strings.Repeat("x", min(76, n-len(b)-3)) + "\n"
			b = append(b, line[:min(len(line), n-len(b))]...)
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		make   func(path string) error
		refuse bool
	}{
		{"at the cap", func(p string) error { return os.WriteFile(p, padded(MaxFileSize), 0o644) }, false},
		{"one byte over", func(p string) error { return os.WriteFile(p, padded(MaxFileSize+1), 0o644) }, true},
		{"sparse 64 MiB", func(p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(64 << 20)
		}, true},
		{"endless device", func(p string) error { // streams on: only the cap stops reading
			if _, err := os.Stat("/dev/zero"); err != nil {
				t.Skip("no /dev/zero")
			}
			return os.Symlink("/dev/zero", p)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.yaml")
			if err := tc.make(path); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			s, err := Load(path)
			if took := time.Since(start); tc.refuse && took > time.Second {
				t.Errorf("refused after %v", took)
			}
			if !tc.refuse {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *Errors
			if !errors.As(err, &e) || len(e.Problems) != 1 {
				t.Fatalf("Load = %+v, %v; want one problem", s, err)
			}
			want := path + ": scenario file larger than the 1 MiB (1048576 bytes) limit"
			if got := e.Problems[0].String(); got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// Text handed to Parse (stdin, a results folder's copy of its scenario) has the same cap.
func TestParseSizeCap(t *testing.T) {
	_, err := Parse("t.yaml", []byte(minimal+strings.Repeat("#\n", MaxFileSize/2)))
	var e *Errors
	if !errors.As(err, &e) || len(e.Problems) != 1 || e.Problems[0].String() != "t.yaml: scenario file larger than the 1 MiB (1048576 bytes) limit" {
		t.Fatalf("Parse = %v", err)
	}
}
