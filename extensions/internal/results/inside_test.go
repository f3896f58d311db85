package results_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// canary is a secret outside the run's folder: no error may print it.
const canary = "MQBENCH_CANARY_TOKEN=hunter2-5f3a"

// writeRun writes a one-cell run under <tmp>/results/untrusted/20260101T000000Z, its e2e
// .hgrm recorded at hgrm, and a secret file beside results/; it returns the run folder and
// the secret's path.
func writeRun(t *testing.T, hgrm string) (dir, secret string) {
	t.Helper()
	tmp := t.TempDir()
	secret = filepath.Join(tmp, "secret.txt")
	if err := os.WriteFile(secret, []byte(canary+" 1 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(tmp, "results", "untrusted", "20260101T000000Z")
	s := sample()
	s.Cells = s.Cells[:1]
	h := hist.New()
	h.Record(1000)
	if _, err := results.WriteData(dir, s, results.Hists{"c1": {"e2e": h}}); err != nil {
		t.Fatal(err)
	}
	s.Cells[0].Hgrm = map[string]string{"e2e": hgrm}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// A results folder from a stranger: every path it names is read only inside it, never
// through a symbolic link, never beyond a size cap, and no error quotes what a file holds.
func TestLoadUntrustedFolder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		hgrm  string // cells[0].hgrm.e2e; "SECRET" is replaced by the secret's absolute path
		setup func(t *testing.T, dir, secret string) string
		want  string // in the error; "" means results.Load succeeds
	}{
		{name: "written by Write", hgrm: "hgrm/c1.e2e.hgrm"},
		{name: "dot-dot out of the folder", hgrm: "../../../secret.txt", want: "cells[0].hgrm.e2e: not a relative path inside the run's folder"},
		{name: "dot-dot that comes back", hgrm: "hgrm/../hgrm/c1.e2e.hgrm", want: "not a relative path inside"},
		{name: "absolute path", hgrm: "SECRET", want: "not a relative path inside"},
		{name: "proc environ", hgrm: "../../../../../../../../../../proc/self/environ", want: "not a relative path inside"},
		{name: "device", hgrm: "dev", setup: func(t *testing.T, dir, _ string) string {
			link(t, "/dev/zero", filepath.Join(dir, "dev"))
			return dir
		}, want: "symbolic link"},
		{name: "symlinked hgrm file", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, secret string) string {
			os.Remove(filepath.Join(dir, "hgrm", "c1.e2e.hgrm"))
			link(t, secret, filepath.Join(dir, "hgrm", "c1.e2e.hgrm"))
			return dir
		}, want: "cells[0].hgrm.e2e: a symbolic link"},
		{name: "symlinked hgrm folder", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, secret string) string {
			os.Rename(filepath.Join(dir, "hgrm"), filepath.Join(dir, "..", "elsewhere"))
			link(t, filepath.Join(dir, "..", "elsewhere"), filepath.Join(dir, "hgrm"))
			return dir
		}, want: "a symbolic link"},
		{name: "symlinked summary.json", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, secret string) string {
			os.Remove(filepath.Join(dir, "summary.json"))
			link(t, secret, filepath.Join(dir, "summary.json"))
			return dir
		}, want: "summary.json: a symbolic link"},
		{name: "the named folder is a symlink", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, _ string) string {
			l := filepath.Join(t.TempDir(), "link")
			link(t, dir, l)
			return l
		}, want: "link: a symbolic link"},
		{name: "the latest run is a symlink", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, _ string) string {
			link(t, t.TempDir(), filepath.Join(filepath.Dir(dir), "20990101T000000Z"))
			return filepath.Dir(dir)
		}, want: "20990101T000000Z is a symbolic link"},
		{name: "a 2 GB hgrm", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, _ string) string {
			if err := os.Truncate(filepath.Join(dir, "hgrm", "c1.e2e.hgrm"), 2<<30); err != nil {
				t.Fatal(err)
			}
			return dir
		}, want: "cells[0].hgrm.e2e: larger than the limit of 64 MiB"},
		{name: "a secret inside the hgrm", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, _ string) string {
			if err := os.WriteFile(filepath.Join(dir, "hgrm", "c1.e2e.hgrm"), []byte("Value\n\n1 0 1\n"+canary+" x y\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, want: "cells[0].hgrm.e2e (hgrm/c1.e2e.hgrm): line 4 (byte offset 13): not a percentile row"},
		{name: "a secret in a number summary.json mistypes", hgrm: "hgrm/c1.e2e.hgrm", setup: func(t *testing.T, dir, _ string) string {
			b := `{"scenario":"x","cells":[{"id":"c1","sent":"` + canary + `"}]}`
			if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}, want: "summary.json: a JSON string where a uint64 belongs at byte offset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, secret := writeRun(t, tc.hgrm)
			if tc.hgrm == "SECRET" {
				writeHgrmPath(t, dir, secret)
			}
			named := dir
			if tc.setup != nil {
				named = tc.setup(t, dir, secret)
			}
			start := time.Now()
			r, err := results.Load(named)
			if time.Since(start) > 5*time.Second {
				t.Errorf("Load took %s", time.Since(start))
			}
			if tc.want == "" {
				if err != nil || r.Dists["c1"]["e2e"].TotalCount != 1 {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want an error with %q", err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "hunter2") || strings.Contains(msg, "\n") {
				t.Errorf("error quotes a file or spans lines: %q", msg)
			}
		})
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

// writeHgrmPath points the run's cells[0].hgrm.e2e at p.
func writeHgrmPath(t *testing.T, dir, p string) {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	var s results.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s.Cells[0].Hgrm = map[string]string{"e2e": p}
	b, _ = json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLocalPath(t *testing.T) {
	for rel, want := range map[string]bool{
		"hgrm/c1.e2e.hgrm": true, "summary.json": true, "": false, "/etc/passwd": false, "../x": false,
		"a/../b": false, "a//b": false, "./a": false, "a/": false, `a\b`: false, "a\x00": false, "C:x": false,
		strings.Repeat("a", 600): false,
	} {
		if results.LocalPath(rel) != want {
			t.Errorf("LocalPath(%q) = %v", rel, !want)
		}
	}
}
