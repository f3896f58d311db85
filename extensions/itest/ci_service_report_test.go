package itest

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// junitReport is what a CI reads of a junit.xml: the counts and each case's failure.
type junitReport struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// The CI template's script reports this run only. When the run writes no results folder (111:
// the scenario is invalid, nothing connects; 2: no mqbench given) it used to report the newest
// older run's folder and copy that run's junit.xml as this job's report; now it names no folder
// and writes a junit.xml of its own: one failing case with the exit code and the run's error.
// A run that writes a folder (112: nothing listens on the broker's port) has its own junit.xml
// copied, beside an older run's folder. No broker is needed.
func TestCIServiceReportsThisRun(t *testing.T) {
	bin := k6Binary(t)
	for _, c := range []struct {
		name     string
		env      []string // beside PATH and HOME
		code     int
		message  string // in the failure's message
		detail   string // in the failure's text: the run's own error
		where    string // in the script's last line: the run's folder, or that it wrote none
		scenario string // written to perf/broken.yaml when not ""
	}{
		{name: "variable unset", env: []string{"MQBENCH_K6=" + bin, "MQBENCH_SCENARIO=perf/orders-kafka.yaml"},
			code: 111, message: "exit 111, the scenario is invalid; this run wrote no results", detail: "KAFKA_URL is not set",
			where: "this run wrote no results; mqbench-junit.xml says so"},
		{name: "invalid scenario", env: []string{"MQBENCH_K6=" + bin, "MQBENCH_SCENARIO=perf/broken.yaml"},
			scenario: "name: broken\nbroker: { type: nosuchbroker, url: 'x://y' }\n",
			code:     111, message: "exit 111, the scenario is invalid; this run wrote no results", detail: "nosuchbroker",
			where: "this run wrote no results; mqbench-junit.xml says so"},
		{name: "no mqbench", env: []string{"MQBENCH_SCENARIO=perf/orders-kafka.yaml", "KAFKA_URL=kafka://127.0.0.1:9"},
			code: 2, message: "exit 2, bad arguments; this run wrote no results", detail: "set MQBENCH_K6",
			where: "this run wrote no results; mqbench-junit.xml says so"},
		{name: "broker unreachable", env: []string{"MQBENCH_K6=" + bin, "MQBENCH_SCENARIO=perf/orders-kafka.yaml", "KAFKA_URL=kafka://127.0.0.1:1"},
			code: 112, message: "kafka broker unreachable at 127.0.0.1:1", where: "results in results/orders-kafka/20"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := serviceRepo(t, false)
			if c.scenario != "" {
				if err := os.WriteFile(filepath.Join(dir, "perf", "broken.yaml"), []byte(c.scenario), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// An older run of each scenario, and the report an earlier job left behind.
			for _, name := range []string{"orders-kafka", "broken"} {
				old := filepath.Join(dir, "results", name, "20200101T000000Z")
				if err := os.MkdirAll(old, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(old, "junit.xml"), []byte("<testsuites><!-- OLDER RUN --></testsuites>\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "mqbench-junit.xml"), []byte("<testsuites><!-- EARLIER JOB --></testsuites>\n"), 0o644); err != nil {
				t.Fatal(err)
			}

			cmd := exec.Command("sh", "perf/mqbench-ci.sh")
			cmd.Dir = dir
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, c.env...)
			r := execRun(t, cmd)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\n%s", r.code, c.code, r)
			}
			if strings.Contains(r.stderr, "20200101T000000Z") || !strings.Contains(r.stderr, c.where) {
				t.Errorf("the script named an older run's folder, or not %q:\n%s", c.where, r)
			}
			b, err := os.ReadFile(filepath.Join(dir, "mqbench-junit.xml"))
			if err != nil {
				t.Fatalf("no junit.xml where the CI reads it: %v", err)
			}
			if strings.Contains(string(b), "OLDER RUN") || strings.Contains(string(b), "EARLIER JOB") {
				t.Fatalf("junit.xml is not this run's:\n%s", b)
			}
			var rep junitReport
			if err := xml.Unmarshal(b, &rep); err != nil {
				t.Fatalf("junit.xml does not parse: %v\n%s", err, b)
			}
			if rep.Tests != 1 || rep.Failures != 1 || len(rep.Suites) != 1 || len(rep.Suites[0].Cases) != 1 {
				t.Fatalf("junit.xml: want one suite with one failing case:\n%s", b)
			}
			f := rep.Suites[0].Cases[0].Failure
			if f == nil || !strings.Contains(f.Message, c.message) || !strings.Contains(f.Text, c.detail) {
				t.Errorf("junit.xml's failure does not say %q with the run's %q:\n%s", c.message, c.detail, b)
			}
		})
	}
}
