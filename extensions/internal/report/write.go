// Package report renders a run's results for people and CI servers: summary.txt (also the
// console's text), junit.xml and report.html, with the inline SVG charts, the one page head
// and stylesheet that compare.html and search.html share. It reads the model of package
// results and writes nothing of its own into it, so the measurement engine, which fills the
// model, does not link the renderer.
package report

import (
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Write puts a finished (or stopped) run on disk under dir: its data (results.WriteData: the
// distributions, then summary.json), then summary.txt, junit.xml and report.html. It returns
// the console text (summary.txt). Whatever can be written is written; the first error is
// returned.
func Write(dir string, s *results.Summary, hs results.Hists) (string, error) {
	dists, firstErr := results.WriteData(dir, s, hs)
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	text := Text(s)
	keep(results.WriteFile(dir, "summary.txt", []byte(text)))
	keep(results.WriteFile(dir, "junit.xml", []byte(JUnit(s))))
	keep(results.WriteFile(dir, "report.html", []byte(HTML(s, dists))))
	return text, firstErr
}
