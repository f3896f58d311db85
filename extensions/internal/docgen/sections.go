package docgen

import (
	"fmt"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// Sections are generated blocks inside hand-written pages (path → block name → text), each
// between "<!-- generated: NAME -->" and "<!-- /generated -->": README.md's exit codes.
func Sections() map[string]map[string]string {
	return map[string]map[string]string{"README.md": {"exit-codes": ExitCodeTable()}}
}

// ExitCodeTable is the short exit-code table (code and meaning) for README.md.
func ExitCodeTable() string {
	var b strings.Builder
	b.WriteString("| code | meaning |\n|---|---|\n")
	for _, e := range exitcode.Table {
		fmt.Fprintf(&b, "| %d | %s |\n", e.Code, e.Meaning)
	}
	return b.String()
}

// Splice replaces the generated block name of page with text; an error when the page has
// no such block.
func Splice(page, name, text string) (string, error) {
	open, end := "<!-- generated: "+name+" -->\n", "<!-- /generated -->"
	i := strings.Index(page, open)
	if i < 0 {
		return "", fmt.Errorf("no %q block", open[:len(open)-1])
	}
	j := strings.Index(page[i:], end)
	if j < 0 {
		return "", fmt.Errorf("block %q has no end %q", name, end)
	}
	return page[:i+len(open)] + text + page[i+j:], nil
}
