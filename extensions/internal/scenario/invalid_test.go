package scenario

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The invalid examples double as documentation of the error messages: each file in
// scenarios/invalid/ must fail with exactly the problems listed in expected.tsv. Paths in
// the table are as a user running from the repository root sees them.
func TestInvalidScenarios(t *testing.T) {
	t.Chdir(repoRoot())
	dir := filepath.Join("scenarios", "invalid")
	expected := readExpected(t, filepath.Join(dir, "expected.tsv"))

	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, f := range files {
		name := filepath.Base(f)
		want, ok := expected[name]
		if !ok {
			t.Errorf("%s is not listed in expected.tsv", f)
			continue
		}
		listed[name] = true
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			s, err := Load(f)
			var e *Errors
			if !errors.As(err, &e) {
				t.Fatalf("Load = %+v, %v; want *Errors", s, err)
			}
			got := make([]string, len(e.Problems))
			for i, p := range e.Problems {
				got[i] = p.String()
			}
			if g := strings.Join(got, " | "); g != want {
				t.Errorf("problems differ\n got: %s\nwant: %s", strings.ReplaceAll(g, " | ", "\n      "), strings.ReplaceAll(want, " | ", "\n      "))
			}
		})
	}
	var stale []string
	for name := range expected {
		if !listed[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(stale)
	for _, name := range stale {
		t.Errorf("expected.tsv lists %s, which does not exist", name)
	}
}

func readExpected(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		file, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s:%d: want file<TAB>expected", path, n)
		}
		if _, dup := out[file]; dup {
			t.Fatalf("%s:%d: %s listed twice", path, n, file)
		}
		out[file] = want
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
