package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every relative link in README.md, CONTRIBUTING.md and docs/ points at a file or folder that
// exists, so moving a page cannot leave a dead link behind.
func TestRelativeLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				rel, _ := filepath.Rel(root, page)
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
	}
}
