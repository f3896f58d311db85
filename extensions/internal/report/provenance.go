package report

import (
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// What made a run (Summary.Mqbench, K6, Go, ScenarioSHA256, Pacing), as report.html's footer
// and junit.xml's properties say it. A summary written before these were recorded has none,
// and its pages say nothing of them.

// provenance is the run's recorded build, scenario hash and pacing as name, value pairs
// (summary.json's keys), leaving out those it has not.
func provenance(s *results.Summary) [][2]string {
	var out [][2]string
	for _, p := range [][2]string{{"mqbench", s.Mqbench}, {"k6", s.K6}, {"go", s.Go}, {"scenario_sha256", s.ScenarioSHA256}, {"pacing", s.Pacing}} {
		if p[1] != "" {
			out = append(out, p)
		}
	}
	return out
}

// madeBy is report.html's footer line about the build: "mqbench v1.2.0 (k6 v2.1.0,
// go1.26.7), scenario SHA-256 9f86…, pacing precise"; "" when the summary records none.
func madeBy(s *results.Summary) string {
	if s.Mqbench == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("mqbench " + s.Mqbench)
	var in []string
	if s.K6 != "" {
		in = append(in, "k6 "+s.K6)
	}
	if s.Go != "" {
		in = append(in, s.Go)
	}
	if len(in) > 0 {
		b.WriteString(" (" + strings.Join(in, ", ") + ")")
	}
	if s.ScenarioSHA256 != "" {
		b.WriteString(", scenario SHA-256 " + s.ScenarioSHA256)
	}
	if s.Pacing != "" {
		b.WriteString(", pacing " + s.Pacing)
	}
	return b.String()
}

// junitProperties is each suite's <properties> block (JUnit's place for a suite's
// environment, which CI servers show beside its cases); "" when the summary records none.
func junitProperties(s *results.Summary) string {
	ps := provenance(s)
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("    <properties>\n")
	for _, p := range ps {
		b.WriteString(`      <property name="` + p[0] + `" value="` + xmlText(p[1]) + `"/>` + "\n")
	}
	b.WriteString("    </properties>\n")
	return b.String()
}
