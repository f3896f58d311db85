package schemagen

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/reference/refgen"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := refgen.Root(".")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// The committed schema is what the parser's definitions give today.
func TestSchemaIsCurrent(t *testing.T) {
	root := repoRoot(t)
	want, err := Generate(root)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(filepath.Join(root, Path))
	if err != nil {
		t.Fatalf("%v; run `%s`", err, Command)
	}
	if string(have) != string(want) {
		t.Errorf("%s is stale; run `%s`", Path, Command)
	}
}

// shippedScenarios lists every scenario the repository ships: under scenarios/ (but not the
// invalid fixtures), the CI example's and the Kubernetes end-to-end run's (a YAML file with a
// top-level matrix).
func shippedScenarios(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, top := range []string{"scenarios", "examples", "k8s"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && path == filepath.Join(root, "scenarios", "invalid"):
				return filepath.SkipDir
			case d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")):
				return nil
			}
			text, err := os.ReadFile(path)
			if err != nil || !strings.Contains("\n"+string(text), "\nmatrix:") {
				return err
			}
			rel, err := filepath.Rel(root, path)
			files = append(files, rel)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) < 10 {
		t.Fatalf("found %d shipped scenarios", len(files))
	}
	return files
}

// Every shipped scenario names the schema on its first line, so editors pick it up.
func TestShippedScenariosNameTheSchema(t *testing.T) {
	root := repoRoot(t)
	for _, file := range shippedScenarios(t, root) {
		rel, err := filepath.Rel(filepath.Dir(file), Path)
		if err != nil {
			t.Fatal(err)
		}
		want := "# yaml-language-server: $schema=" + filepath.ToSlash(rel)
		f, err := os.Open(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan()
		if got := sc.Text(); got != want {
			t.Errorf("%s: first line is %q, want %q", file, got, want)
		}
		f.Close()
	}
}
