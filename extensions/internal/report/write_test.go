package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Write puts the run's data (results.WriteData) and its rendered files in its folder, and
// returns summary.txt's text; report.html draws the distributions the .hgrm files hold and
// links them.
func TestWriteRendersEveryFile(t *testing.T) {
	s := sample()
	hs := results.Hists{}
	for _, id := range []string{"c1", "c2"} {
		h := hist.New()
		for v := int64(1); v <= 20000; v++ {
			h.Record(v * 50)
		}
		hs[id] = map[string]*hist.Hist{"e2e": h}
	}
	dir := filepath.Join(t.TempDir(), "report-embedded", "20260102T030405Z")
	text, err := Write(dir, s, hs)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary.json", "summary.txt", "junit.xml", "report.html", "hgrm/c1.e2e.hgrm", "hdr/c2.e2e.hdr"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "summary.txt")); string(b) != text || !strings.Contains(text, "result: FAIL") {
		t.Errorf("summary.txt differs from what Write returned, or lacks the verdict:\n%s", b)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if n := drawn(string(page))["e2e"]; n != 2 || !strings.Contains(string(page), `<a href="hgrm/c2.e2e.hgrm">`) {
		t.Errorf("report.html: e2e drawn %d times, or no link to the .hgrm", n)
	}
}

// Summaries written by the JavaScript handleSummary (schema 1) still load and render.
func TestLoadSchema1(t *testing.T) {
	dir := t.TempDir()
	old := `{"schema": 1, "scenario": "old", "run_id": "r", "broker": {"type": "redis", "url": "redis://x", "ack_mode": "none"},
	"finished_at": "2025-01-01T00:00:00.000Z", "test_run_duration_ms": 5000, "thresholds_ok": false, "results_dir": "results/old/x",
	"cells": [{"id": "c1", "status": "complete", "size": "1KB", "size_bytes": 1024, "rate": 100, "ledger": {"lost": 2},
	  "e2e_latency_us": {"count": 10, "min": 1, "mean": 2, "max": 3, "percentiles": {"p50": 2, "p99": 3}},
	  "thresholds": [{"metric": "mq_e2e_latency{cell:c1}", "cell": "c1", "expression": "p(99)<5", "source": "p(99) < 5ms", "ok": true, "value": 0.003, "unit": "ms"}]}],
	"thresholds": [{"metric": "mq_e2e_latency{cell:c1}", "cell": "c1", "expression": "p(99)<5", "source": "p(99) < 5ms", "ok": true, "value": 0.003, "unit": "ms"},
	  {"metric": "iterations", "cell": null, "expression": "count>100", "source": "count > 100", "ok": false, "value": null, "unit": ""}]}`
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := results.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Thresholds[1]
	if run.Cell != "" || run.Value != nil || run.EvaluatedBy != "k6" || r.Thresholds[0].Cell != "c1" || r.Cells[0].Thresholds[0].EvaluatedBy != "k6" {
		t.Errorf("thresholds %+v", r.Thresholds)
	}
	if !r.Complete || r.Cells[0].Ledger.Lost != 2 || r.Cells[0].SizeLabel != "1KB" || r.Cells[0].E2ELatency.P["p99"] != 3 {
		t.Errorf("summary %+v", r.Summary)
	}
	if x := JUnit(&r.Summary); !strings.Contains(x, `<testsuite name="old.run" tests="1" failures="1"`) {
		t.Errorf("the null-cell threshold is not run-wide:\n%s", x)
	}
	if txt := Text(&r.Summary); !strings.Contains(txt, "  FAIL  iterations  count > 100\n") {
		t.Errorf("summary.txt:\n%s", txt)
	}
}
