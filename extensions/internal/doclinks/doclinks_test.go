package doclinks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every relative link and #anchor in README.md, CONTRIBUTING.md, docs/*.md and
// examples/**/*.md resolves (run by make test's unit step).
func TestRepositoryLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d pages under %s; want README.md and docs/", len(pages), root)
	}
	broken, err := Check(root, pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("%s:%d: link %s: %s", b.Page, b.Line, b.Target, b.Why)
	}
}

// The checker itself: planted broken links (a missing file, a missing anchor here or in
// another page) are caught; links that resolve, links in code, and external links are not.
func TestCheckFindsPlantedBrokenLinks(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"README.md": "# Demo\n\n## Capacity search\n\nSee [docs](docs/a.md), [search](#capacity-search), " +
			"[gone](docs/gone.md), [bad anchor](#capacity), [web](https://example.com/#x).\n\n" +
			"```\n[in code](nothere.md)\n```\n\nAnd `[span](nothere.md)`.\n",
		"docs/a.md": "# A page\n\n## Exit codes (111, 112)\n\n## Exit codes (111, 112)\n\n" +
			"[ok](#exit-codes-111-112) [dup](#exit-codes-111-112-1) [up](../README.md#demo) " +
			"[missing](../README.md#reference) [folder](../docs) [explicit](#here)\n\n<a id=\"here\"></a>\n\n[ref]: b.md\n",
		"examples/x/notes.md": "[a](../../docs/a.md#a-page) [b](../../docs/a.md#nope)\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pages, err := Pages(root)
	if err != nil {
		t.Fatal(err)
	}
	broken, err := Check(root, pages)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range broken {
		got = append(got, filepath.ToSlash(b.Page)+" "+b.Target+": "+b.Why)
	}
	want := []string{
		"README.md docs/gone.md: no such file",
		"README.md #capacity: no heading with anchor #capacity in README.md",
		"docs/a.md ../README.md#reference: no heading with anchor #reference in README.md",
		"docs/a.md b.md: no such file",
		"examples/x/notes.md ../../docs/a.md#nope: no heading with anchor #nope in docs/a.md",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("broken links\n got: %s\nwant: %s", strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Capacity search":                   "capacity-search",
		"Exit codes (111, 112)":             "exit-codes-111-112",
		"`k6 x mqbench run` flags":          "k6-x-mqbench-run-flags",
		"[Metrics](docs/metrics.md) & more": "metrics--more",
		"Kafka: acks=all":                   "kafka-acksall",
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}
