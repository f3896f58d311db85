package report

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

type junitDoc struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Time     string `xml:"time,attr"`
	Suites   []struct {
		Name      string `xml:"name,attr"`
		Tests     int    `xml:"tests,attr"`
		Failures  int    `xml:"failures,attr"`
		Time      string `xml:"time,attr"`
		Timestamp string `xml:"timestamp,attr"`
		Cases     []struct {
			Name    string `xml:"name,attr"`
			Class   string `xml:"classname,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func TestJUnit(t *testing.T) {
	tests := []struct {
		name            string
		s               *results.Summary
		tests, failures int
		suites          map[string][2]int // name → tests, failures
		cases           map[string]string // "suite / case" → failure message, "ok" when it passed
	}{{
		name: "a suite per cell, a case per threshold, run-wide thresholds in <scenario>.run",
		s:    sample(), tests: 4, failures: 2,
		suites: map[string][2]int{"report-embedded.c1": {1, 0}, "report-embedded.c2": {2, 2}, "report-embedded.run": {1, 0}},
		cases: map[string]string{
			"report-embedded.c1 / mq_e2e_latency p(99) < 5ms": "ok",
			"report-embedded.c2 / mq_e2e_latency p(99) < 5ms": "mq_e2e_latency p(99) < 5ms: measured 2.10s",
			// listed run-wide only, but it names c2: it is c2's case
			"report-embedded.c2 / dropped_iterations count < 1": "c2: mqbench could not start 7 of 5,600 sends on time (the load generator fell behind, short of CPU or of ready VUs: schedule lag p99 30.0us, max 80.0us): this is not the broker. Use a bigger runner, lower the rate, raise workload.vus (VUs kept ready to send), or set validity.allow_dropped_iterations",
			"report-embedded.run / mq_loss_ratio rate < 1%":     "ok",
		},
	}, {
		name: "an aborted run: a failing completed case per unfinished cell",
		s:    edge(), tests: 5, failures: 4,
		suites: map[string][2]int{"edge.c1": {2, 2}, "edge.c2": {2, 2}, "edge.run": {1, 0}},
		cases: map[string]string{
			"edge.c1 / mq_e2e_latency p(99) < 500us": "mq_e2e_latency p(99) < 500us: measured 900.0us",
			"edge.c1 / completed":                    "cell c1 interrupted: the run stopped before its drain ended",
			"edge.c2 / mq_messages_lost count == 0":  "mq_messages_lost count == 0: not measured",
			"edge.c2 / completed":                    "cell c2 not started: the run stopped before its drain ended",
			"edge.run / iterations count > 0 <&>":    "ok",
		},
	}, {
		name: "no thresholds",
		s: func() *results.Summary {
			s := sample()
			s.Thresholds, s.Cells[0].Thresholds, s.Cells[1].Thresholds = nil, nil, nil
			return s
		}(),
		suites: map[string][2]int{"report-embedded.c1": {0, 0}, "report-embedded.c2": {0, 0}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := JUnit(tc.s)
			var doc junitDoc
			if err := xml.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("junit.xml does not parse: %v\n%s", err, out)
			}
			if doc.Tests != tc.tests || doc.Failures != tc.failures {
				t.Errorf("tests=%d failures=%d, want %d, %d\n%s", doc.Tests, doc.Failures, tc.tests, tc.failures, out)
			}
			got := map[string]string{}
			sumTests, sumFailures := 0, 0
			for _, su := range doc.Suites {
				want, ok := tc.suites[su.Name]
				if !ok || su.Tests != want[0] || su.Failures != want[1] || len(su.Cases) != su.Tests {
					t.Errorf("suite %s: tests=%d failures=%d cases=%d, want %v", su.Name, su.Tests, su.Failures, len(su.Cases), want)
				}
				sumTests, sumFailures = sumTests+su.Tests, sumFailures+su.Failures
				for _, c := range su.Cases {
					msg := "ok"
					if c.Failure != nil {
						msg = c.Failure.Message
					}
					if c.Class != su.Name {
						t.Errorf("case %q of %s has classname %q", c.Name, su.Name, c.Class)
					}
					got[su.Name+" / "+c.Name] = msg
				}
			}
			if len(doc.Suites) != len(tc.suites) || sumTests != doc.Tests || sumFailures != doc.Failures {
				t.Errorf("%d suites (want %d) adding up to %d tests, %d failures", len(doc.Suites), len(tc.suites), sumTests, sumFailures)
			}
			for k, v := range tc.cases {
				if got[k] != v {
					t.Errorf("%s: %q, want %q", k, got[k], v)
				}
			}
		})
	}
}

func TestJUnitDetails(t *testing.T) {
	out := JUnit(sample())
	for _, want := range []string{
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites name="mqbench report-embedded" tests="4" failures="2" errors="0" time="11.234">`,
		`<testsuite name="report-embedded.c1" tests="1" failures="0" errors="0" skipped="0" time="9.000" timestamp="2026-01-02T03:04:05">`,
		`type="threshold">mq_e2e_latency{cell:c2}: p(99) &lt; 5ms failed; measured 2.10s (k6 form: p(99)&lt;5)</failure>`,
		`<testsuite name="report-embedded.run" tests="1" failures="0" errors="0" skipped="0" time="0.000"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

// Names and sources are escaped; characters XML 1.0 cannot carry are dropped, so the file
// always parses.
func TestJUnitEscapes(t *testing.T) {
	s := sample()
	s.Scenario = "a<b>&\"c\"'\x01\x1b\ufffe"
	s.Cells[1].ID = "c2<&\">\x0c"
	s.Thresholds[1].Source = "p(99) < 5ms <&\"\x00\x08>"
	s.Cells[1].Thresholds[0].Source = s.Thresholds[1].Source
	s.Thresholds[1].Metric = "mq_e2e_latency{cell:c2<&>}"
	s.Cells[1].Thresholds[0].Metric = s.Thresholds[1].Metric
	s.FinishedAt = "bad\xffutf8"
	out := JUnit(s)
	var doc junitDoc
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("junit.xml does not parse: %v\n%s", err, out)
	}
	if want := `mqbench a<b>&"c"'`; doc.Name != want {
		t.Errorf("suites name %q, want %q", doc.Name, want)
	}
	if want := `a<b>&"c"'.c2<&">`; doc.Suites[1].Name != want || doc.Suites[1].Cases[0].Class != want {
		t.Errorf("suite %q, want %q", doc.Suites[1].Name, want)
	}
	if f := doc.Suites[1].Cases[0].Failure; f == nil || f.Message != `mq_e2e_latency p(99) < 5ms <&">: measured 2.10s` {
		t.Errorf("failure %+v", f)
	}
	for _, want := range []string{"a&lt;b&gt;&amp;&quot;c&quot;&apos;", "p(99) &lt; 5ms &lt;&amp;&quot;&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	if i := strings.IndexFunc(out, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0xfffe || r == 0xfffd }); i >= 0 {
		t.Errorf("character %q at %d", out[i], i)
	}
}
