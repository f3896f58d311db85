package results

import "github.com/mqbench/xk6-mqbench/internal/hist"

// Text renders summary.txt (the console table). TODO(helper): port of lib/summary.js render.
func Text(s *Summary) string { return Clean("mqbench " + s.Scenario + "\n") }

// JUnit renders junit.xml. TODO(helper): port of lib/junit.js.
func JUnit(s *Summary) string { return "" }

// HTML renders report.html. TODO(helper): port of lib/report.js and lib/svgchart.js.
func HTML(s *Summary, dists map[string]map[string]hist.Distribution) string { return "" }
