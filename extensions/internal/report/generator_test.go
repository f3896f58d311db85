package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// generatorRun is sample() with every threshold held except c2's dropped iterations: the
// quickstart's failure on a busy machine.
func generatorRun() *results.Summary {
	s := sample()
	for i := range s.Thresholds {
		s.Thresholds[i].OK, s.Thresholds[i].Status = true, results.StatusPass
	}
	s.Cells[1].Thresholds[0].OK, s.Cells[1].Thresholds[0].Status = true, results.StatusPass
	s.Thresholds[2].Value = ptr(33)
	s.Thresholds[2].OK, s.Thresholds[2].Status = false, results.StatusFail
	s.Cells[1].DroppedIterations = 33
	s.Cells[1].ScheduleLag = stats(2000, 1, 5, 38000, 120000)
	s.Cells[1].HostStealPct = ptr(1.04)
	return s
}

const generatorLine = "c2: mqbench could not start 33 of 5,600 sends on time (the load generator fell behind, short of CPU or of ready VUs: " +
	"schedule lag p99 38.00ms, max 120.00ms, host steal 1.0%): this is not the broker. Use a bigger runner, lower the rate, " +
	"raise workload.vus (VUs kept ready to send), or set validity.allow_dropped_iterations"

func TestGeneratorReason(t *testing.T) {
	for _, tc := range []struct {
		name     string
		edit     func(s *results.Summary)
		want     string // the dropped threshold's reason
		onlyGen  bool
		inResult string // summary.txt's result line
	}{{
		name: "only the generator fell behind", edit: func(*results.Summary) {},
		want: generatorLine, onlyGen: true, inResult: "result: INVALID (" + results.GeneratorVerdict + ")",
	}, {
		name: "a broker threshold failed too: a breach",
		edit: func(s *results.Summary) { s.Thresholds[1].OK, s.Thresholds[1].Status = false, results.StatusFail },
		want: generatorLine, inResult: "result: FAIL (thresholds crossed)",
	}, {
		name: "a threshold with no data: not only the generator",
		edit: func(s *results.Summary) {
			s.Thresholds[3].OK, s.Thresholds[3].Status, s.Thresholds[3].Value = false, results.StatusNoData, nil
		},
		want: generatorLine, inResult: "result: FAIL (thresholds crossed; 1 threshold with no data)",
	}, {
		name: "batches, no steal figure",
		edit: func(s *results.Summary) { s.Cells[1].Batch, s.Cells[1].HostStealPct = 10, nil },
		want: "c2: mqbench could not start 33 of 560 batches (of 10 messages) on time (the load generator fell behind, short of CPU or of ready VUs: " +
			"schedule lag p99 38.00ms, max 120.00ms): this is not the broker.",
		onlyGen: true, inResult: "result: INVALID",
	}, {
		name: "an acknowledgement took a second: the broker may have held sends back",
		edit: func(s *results.Summary) { s.Cells[1].PublishLatency = stats(2000, 40, 900, 90000, 1.5e6) },
		want: "c2: mqbench could not start 33 of 5,600 sends on time (the broker may have held sends back: publish latency max 1.50s, " +
			"schedule lag p99 38.00ms, max 120.00ms, host steal 1.0%): the measurement is invalid. Lower the rate",
		inResult: "result: FAIL (thresholds crossed)",
	}, {
		name: "failed sends and a fault: the broker's too",
		edit: func(s *results.Summary) {
			s.Cells[1].PublishErrors, s.Cells[1].Faults = 1200, []results.Fault{{Action: "kill"}}
		},
		want: "c2: mqbench could not start 33 of 5,600 sends on time (the broker may have held sends back: publish latency max 900.0us, " +
			"1,200 publish errors, faults ran, schedule lag p99",
		inResult: "result: FAIL (thresholds crossed)",
	}, {
		name: "no drop counted: the plain line stays",
		edit: func(s *results.Summary) { s.Thresholds[2].Value, s.Cells[1].DroppedIterations = nil, 0 },
		want: "", inResult: "result: FAIL (thresholds crossed)",
	}, {
		name:    "a run-wide count names no cell",
		edit:    func(s *results.Summary) { s.Thresholds[2].Metric, s.Thresholds[2].Cell = "dropped_iterations", "" },
		want:    "mqbench could not start 33 sends on time (the load generator fell behind, short of CPU or of ready VUs): this is not the broker.",
		onlyGen: true, inResult: "result: INVALID",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			s := generatorRun()
			tc.edit(s)
			got := results.GeneratorReason(s, s.Thresholds[2])
			if !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
				t.Errorf("reason:\n got %q\nwant %q…", got, tc.want)
			}
			if g := results.GeneratorOnly(s); g != tc.onlyGen {
				t.Errorf("GeneratorOnly = %v, want %v", g, tc.onlyGen)
			}
			if text := Text(s); !strings.Contains(text, "\n"+tc.inResult) {
				t.Errorf("summary.txt lacks %q:\n%s", tc.inResult, text)
			}
		})
	}
}

// Every report says it in the same words: summary.txt's line, the breaches run prints,
// junit.xml's failure message, report.html, and summary.json's reason.
func TestGeneratorReasonInEveryReport(t *testing.T) {
	dir := t.TempDir()
	s := generatorRun()
	text, err := Write(dir, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "  FAIL  "+generatorLine+"\n") || strings.Contains(text, "c2_publish") {
		t.Errorf("summary.txt: no plain line, or k6's scenario name:\n%s", text)
	}
	if b := Breaches(s); len(b) != 1 || b[0] != generatorLine {
		t.Errorf("breaches = %q", b)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	esc := xmlText(generatorLine)
	if j := read("junit.xml"); !strings.Contains(j, `<failure message="`+esc+`" type="generator">`) {
		t.Errorf("junit.xml lacks the plain failure:\n%s", j)
	}
	h := read("report.html")
	if n := strings.Count(h, Esc(generatorLine)); n != 2 { // failed at the top, and under the threshold
		t.Errorf("report.html shows the plain line %d times, want 2", n)
	}
	if !strings.Contains(h, ">INVALID<") || !strings.Contains(h, Esc(results.GeneratorVerdict)) {
		t.Errorf("report.html's verdict is not INVALID")
	}
	var back struct {
		Thresholds []struct {
			Metric string `json:"metric"`
			Reason string `json:"reason"`
		} `json:"thresholds"`
	}
	if err := json.Unmarshal([]byte(read("summary.json")), &back); err != nil {
		t.Fatal(err)
	}
	for _, th := range back.Thresholds {
		want := ""
		if strings.HasPrefix(th.Metric, "dropped_iterations") {
			want = generatorLine
		}
		if th.Reason != want {
			t.Errorf("summary.json %s reason = %q, want %q", th.Metric, th.Reason, want)
		}
	}
}
