package compare

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// loadHostile is a results folder whose text came from a pull request: a cell status, a
// scenario name and a broker server that try to break out of a Markdown table cell, add
// a line, link somewhere, or start a spreadsheet formula.
func loadHostile(t *testing.T) []*results.Run {
	t.Helper()
	r, err := results.Load(writeRun(t, filepath.Join(t.TempDir(), "run"), "nats-x", 812, 3000))
	if err != nil {
		t.Fatal(err)
	}
	r.Label = "=HYPERLINK(\"http://evil\")"
	r.Broker.Server = "srv | injected `code` <img src=x onerror=alert(1)>\n# heading\u202e"
	r.Cells[0].Status = "stopped|x\n| fake | row |"
	r.Dir = "dir`with`ticks"
	return []*results.Run{r}
}

func TestMarkdownEscapesCells(t *testing.T) {
	md := Markdown(loadHostile(t))
	lines := strings.Split(strings.TrimRight(md, "\n"), "\n")
	var table []string
	for _, l := range lines {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	cols := len(tableHead) + 2 // the pieces before the first and after the last bar are empty
	for _, l := range table {
		if n := len(strings.Split(strings.ReplaceAll(l, `\|`, ""), "|")); n != cols {
			t.Errorf("a table line has %d cells, want %d: %q", n-2, cols-2, l)
		}
	}
	if len(table) != 2+len(CellIDs(loadHostile(t))) {
		t.Errorf("%d table lines, want header, rule and one per cell:\n%s", len(table), md)
	}
	for _, bad := range []string{"<img", "\n# heading", "\u202e", "| =HYPERLINK", "`with`", "\n| fake"} {
		if strings.Contains(md, bad) {
			t.Errorf("compare.md holds %q:\n%s", bad, md)
		}
	}
}

// compare.html runs no script but its own chart script, allowed by hash in its policy.
func TestCompareHTMLPolicy(t *testing.T) {
	page := HTML(loadHostile(t), nil, 0.1)
	head, _, ok := strings.Cut(page, "<style>")
	if !ok || !strings.Contains(head, report.CSPMeta) {
		t.Errorf("compare.html does not set the policy before its styles")
	}
	if n := strings.Count(page, "<script>"); n != 1 || !strings.Contains(page, "<script>"+report.ChartScript+"</script>") {
		t.Errorf("compare.html has %d scripts, want the chart script alone", n)
	}
	if strings.Contains(page, "\u202e") || strings.Contains(page, "<img") {
		t.Errorf("compare.html holds hostile text")
	}
}
