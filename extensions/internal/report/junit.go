package report

import (
	"regexp"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/jsnum"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// junit.xml: one <testsuite> per cell, one <testcase> per threshold, so a CI server lists
// which SLA broke, with the measured value beside the limit. A cell that did not run to its
// end adds a failing "completed" case. Run-wide thresholds (no cell) go to a suite
// "<scenario>.run".

var (
	// XML 1.0 allows tab, newline, carriage return and U+0020 upwards (minus U+FFFE/U+FFFF);
	// bidi controls are valid XML but reorder what a CI server shows, so they go too.
	xmlInvalid = regexp.MustCompile("[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff" + textclean.BidiClass + "]")
	xmlEscape  = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
	fraction   = regexp.MustCompile(`\.\d+Z$`)
)

// xmlText makes text safe in XML 1.0 content and attributes: characters XML cannot carry
// (control characters, invalid UTF-8, U+FFFE/U+FFFF) dropped, markup escaped.
func xmlText(s string) string {
	return xmlEscape.Replace(xmlInvalid.ReplaceAllString(strings.ToValidUTF8(s, ""), ""))
}

type junitCase struct {
	xml    string
	failed bool
}

// junitThreshold is one threshold's case; why, when not "", is the failure in plain words
// (GeneratorReason), the message a CI server shows.
func junitThreshold(suite string, t results.Threshold, why string) junitCase {
	metric, _, _ := strings.Cut(t.Metric, "{")
	name := metric + " " + source(t)
	head := `    <testcase classname="` + xmlText(suite) + `" name="` + xmlText(name) + `" time="0">`
	if t.OK && t.State() == results.StatusPass {
		return junitCase{xml: head + `</testcase>`}
	}
	got := "not measured"
	if t.State() == results.StatusNoData {
		got = "no data (nothing measured)"
	}
	if t.Value != nil {
		got = "measured " + measuredText(t)
	}
	if why != "" {
		return junitCase{failed: true, xml: head + "\n" +
			`      <failure message="` + xmlText(why) + `" type="generator">` +
			xmlText(why+" ("+t.Metric+": "+source(t)+" failed; "+got+")") + "</failure>\n    </testcase>"}
	}
	return junitCase{failed: true, xml: head + "\n" +
		`      <failure message="` + xmlText(name+": "+got) + `" type="threshold">` +
		xmlText(t.Metric+": "+source(t)+" failed; "+got+" (k6 form: "+t.Expression+")") + "</failure>\n    </testcase>"}
}

func junitSuite(name string, seconds float64, cases []junitCase, timestamp, properties string) (string, int) {
	failures := 0
	body := make([]string, len(cases))
	for i, c := range cases {
		body[i] = c.xml
		if c.failed {
			failures++
		}
	}
	ts := ""
	if timestamp != "" {
		ts = ` timestamp="` + xmlText(timestamp) + `"`
	}
	return `  <testsuite name="` + xmlText(name) + `" tests="` + itoa(int64(len(cases))) + `" failures="` + itoa(int64(failures)) +
		`" errors="0" skipped="0" time="` + jsnum.ToFixed(seconds, 3) + `"` + ts + ">\n" + properties + strings.Join(body, "\n") + "\n  </testsuite>", failures
}

// JUnit renders junit.xml.
func JUnit(s *results.Summary) string {
	ts := strings.TrimSuffix(fraction.ReplaceAllString(s.FinishedAt, ""), "Z")
	props := junitProperties(s) // provenance.go
	var suites []string
	tests, failures := 0, 0
	add := func(name string, seconds float64, cases []junitCase) {
		x, f := junitSuite(name, seconds, cases, ts, props)
		suites = append(suites, x)
		tests += len(cases)
		failures += f
	}
	for i := range s.Cells {
		c := &s.Cells[i]
		name := s.Scenario + "." + c.ID
		var cases []junitCase
		for _, t := range s.CellThresholds(c) {
			cases = append(cases, junitThreshold(name, t, results.GeneratorReason(s, t)))
		}
		if c.Status != "" && c.Status != "complete" {
			why := "cell " + c.ID + " " + c.Status + ": the run stopped before its drain ended"
			if s.Error != "" {
				why = "cell " + c.ID + " " + c.Status + ": " + s.Error
			}
			cases = append(cases, junitCase{failed: true, xml: `    <testcase classname="` + xmlText(name) + `" name="completed" time="0">` + "\n" +
				`      <failure message="` + xmlText(why) + `" type="incomplete"/>` + "\n    </testcase>"})
		}
		add(name, c.WarmupS+c.DurationS+c.DrainS, cases)
	}
	if global := s.RunThresholds(); len(global) > 0 {
		name := s.Scenario + ".run"
		var cases []junitCase
		for _, t := range global {
			cases = append(cases, junitThreshold(name, t, results.GeneratorReason(s, t)))
		}
		add(name, 0, cases)
	}
	all := strings.Join(suites, "\n")
	if all != "" {
		all += "\n"
	}
	return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<testsuites name="mqbench ` + xmlText(s.Scenario) + `" tests="` + itoa(int64(tests)) + `" failures="` + itoa(int64(failures)) +
		`" errors="0" time="` + jsnum.ToFixed(s.TestRunDurationMs/1000, 3) + `">` + "\n" + all + "</testsuites>\n"
}
