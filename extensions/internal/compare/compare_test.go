package compare

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// writeRun writes a minimal results folder: summary.json (and an .hgrm for c1 e2e).
func writeRun(t *testing.T, dir, scenario string, p99, rate float64) string {
	t.Helper()
	s := map[string]any{
		"scenario": scenario, "run_id": "abcd1234", "finished_at": "2026-11-21T10:00:00Z", "thresholds_ok": true,
		"broker": map[string]any{"type": "nats", "url": "embedded", "ack_mode": "none"},
		"cells": []any{
			map[string]any{"id": "c1", "status": "complete", "size": "1KB", "rate": 3000, "receiver_rate": rate, "sender_rate": rate,
				"ledger":             map[string]any{"lost": 0},
				"e2e_latency_us":     map[string]any{"count": 90000, "min": 50, "mean": 300, "max": 9000, "percentiles": map[string]any{"p50": 250, "p90": 400, "p99": p99, "p99_9": 3000, "p99_99": 8000}},
				"publish_latency_us": map[string]any{"count": 0, "percentiles": map[string]any{}},
				"hgrm":               map[string]any{"e2e": "hgrm/c1.e2e.hgrm"},
				"thresholds":         []any{map[string]any{"ok": true}}},
			map[string]any{"id": "c2", "status": "complete", "size": "5KB", "rate": 2000, "receiver_rate": 2000,
				"e2e_latency_us": map[string]any{"count": 60000, "min": 60, "mean": 400, "max": 5000, "percentiles": map[string]any{"p50": 300, "p99": 1000}}},
		},
	}
	if err := os.MkdirAll(filepath.Join(dir, "hgrm"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	h := hist.New()
	for i := int64(1); i <= 1000; i++ {
		h.Record(i * 1000)
	}
	f, err := os.Create(filepath.Join(dir, "hgrm", "c1.e2e.hgrm"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := h.WriteHgrm(f); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGateNamesTheCellAndTheRegression(t *testing.T) {
	root := t.TempDir()
	base, err := results.Load(writeRun(t, filepath.Join(root, "base"), "nats-x", 812, 3000))
	if err != nil {
		t.Fatal(err)
	}
	cand, err := results.Load(writeRun(t, filepath.Join(root, "cand"), "nats-x", 1002, 2550))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMetrics(DefaultMetrics)
	if err != nil {
		t.Fatal(err)
	}
	fs := Gate(base, cand, ms, 0.10)
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.Line(0.10))
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"FAIL  cell c1: e2e p99 regressed 23.4% (812us -> 1.00ms), tolerance 10%",
		"FAIL  cell c1: receiver_rate regressed 15.0% (3000/s -> 2550/s), tolerance 10%",
		"skip  cell c1: publish p99 [measured in neither run]",
		"ok    cell c2: e2e p99 unchanged (1.00ms -> 1.00ms)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if n := len(Regressions(fs)); n != 2 {
		t.Errorf("%d regressions, want 2:\n%s", n, text)
	}
	// Improvements never fail: the candidate as baseline is a pass.
	if bad := Regressions(Gate(cand, base, ms, 0.10)); len(bad) != 0 {
		t.Errorf("improvement counted as regression: %+v", bad)
	}
	// Within tolerance.
	if bad := Regressions(Gate(base, cand, ms, 0.25)); len(bad) != 0 {
		t.Errorf("23.4%% worse failed a 25%% tolerance: %+v", bad)
	}
}

func TestGateFailsAMissingOrIncompleteCandidateCell(t *testing.T) {
	root := t.TempDir()
	base, _ := results.Load(writeRun(t, filepath.Join(root, "base"), "s", 800, 3000))
	cand, _ := results.Load(writeRun(t, filepath.Join(root, "cand"), "s", 800, 3000))
	cand.Cells = cand.Cells[:1]
	cand.Cells[0].Status = "interrupted"
	fs := Regressions(Gate(base, cand, []Metric{{Name: "e2e.p99", Kind: "e2e", Stat: "p99", Q: 0.99}}, 0.1))
	if len(fs) != 2 || !strings.Contains(fs[0].Line(0.1), "cell c1: candidate cell interrupted") || !strings.Contains(fs[1].Line(0.1), "cell c2: missing in the candidate") {
		t.Fatalf("findings %+v", fs)
	}
}

func TestValueReadsOtherPercentilesOffTheHgrm(t *testing.T) {
	r, err := results.Load(writeRun(t, filepath.Join(t.TempDir(), "r"), "s", 800, 3000))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := ParseMetrics("e2e.p95, e2e.p99_9,e2e.max,throughput")
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{950, 3000, 9000, 3000} // p95 from the .hgrm (1..1000 µs), p99.9 from summary.json
	for i, m := range ms {
		v, _, ok := Value(r, "c1", m)
		if !ok || math.Abs(v-want[i]) > want[i]*0.002 {
			t.Errorf("%s = %v (%v), want %v", m.Name, v, ok, want[i])
		}
	}
	if _, _, ok := Value(r, "c2", ms[0]); ok {
		t.Error("p95 of a cell without .hgrm and without p95 in summary.json")
	}
}

func TestParseMetrics(t *testing.T) {
	for _, bad := range []string{"e2e", "e2e.q99", "latency.p99", "e2e.p100", ""} {
		if _, err := ParseMetrics(bad); err == nil {
			t.Errorf("ParseMetrics(%q) accepted", bad)
		}
	}
}

// A tolerance is a percentage with its sign; a bare number (0.1: 10 % or 0.1 %?), a negative
// one and one above 100 % are refused with a message that says how to write it.
func TestParseTolerance(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		err  string // "" when accepted
	}{
		{in: "10%", want: 0.1},
		{in: "0.1%", want: 0.001},
		{in: " 2.5% ", want: 0.025},
		{in: "10 %", want: 0.1},
		{in: "0%", want: 0},
		{in: "100%", want: 1},
		{in: "0.1", err: `write a percentage such as 10% (got "0.1")`},
		{in: "10", err: `write a percentage such as 10% (got "10")`},
		{in: "", err: `write a percentage such as 10% (got "")`},
		{in: "%", err: `write a percentage such as 10% (got "%")`},
		{in: "ten%", err: `write a percentage such as 10% (got "ten%")`},
		{in: "NaN%", err: `write a percentage such as 10% (got "NaN%")`},
		{in: "Inf%", err: `write a percentage such as 10% (got "Inf%")`},
		{in: "10%%", err: `write a percentage such as 10% (got "10%%")`},
		{in: "-5%", err: `give a percentage from 0% to 100% (got "-5%")`},
		{in: "150%", err: `give a percentage from 0% to 100% (got "150%")`},
		{in: "100.01%", err: `give a percentage from 0% to 100% (got "100.01%")`},
	} {
		got, err := ParseTolerance(c.in)
		switch {
		case c.err == "" && (err != nil || math.Abs(got-c.want) > 1e-12):
			t.Errorf("ParseTolerance(%q) = %v, %v; want %v", c.in, got, err, c.want)
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseTolerance(%q) = %v, %v; want the error %q", c.in, got, err, c.err)
		}
	}
}

func TestResolveTakesTheLatestRunAndLabelsAreDistinct(t *testing.T) {
	root := t.TempDir()
	writeRun(t, filepath.Join(root, "nats-x", "20260101T000000Z"), "nats-x", 800, 3000)
	writeRun(t, filepath.Join(root, "nats-x", "20260102T000000Z"), "nats-x", 900, 3000)
	writeRun(t, filepath.Join(root, "redis-x", "20260101T000000Z"), "redis-x", 700, 3000)
	got, err := results.Resolve(filepath.Join(root, "nats-x"))
	if err != nil || filepath.Base(got) != "20260102T000000Z" {
		t.Fatalf("Resolve = %s, %v", got, err)
	}
	if _, err := results.Resolve(root); err == nil {
		t.Error("a folder of scenarios resolved to a run")
	}
	runs, err := results.LoadAll([]string{filepath.Join(root, "nats-x"), filepath.Join(root, "nats-x", "20260101T000000Z"), filepath.Join(root, "redis-x")})
	if err != nil {
		t.Fatal(err)
	}
	if runs[0].Label != "nats-x@20260102T000000Z" || runs[1].Label != "nats-x@20260101T000000Z" || runs[2].Label != "redis-x" {
		t.Errorf("labels %q %q %q", runs[0].Label, runs[1].Label, runs[2].Label)
	}
	runs[0].Broker.Server, runs[1].Broker.Server = "NATS Server 2.10.24", "NATS Server 2.9.0 <old>"
	md := Markdown(runs)
	if !strings.Contains(md, "| c1   | redis-x") || !strings.Contains(md, "800us (-11.1%)") {
		t.Errorf("table:\n%s", md)
	}
	// A comparison across a broker upgrade names both versions; a run without one names none.
	for _, want := range []string{"(server NATS Server 2.10.24), run", "(server NATS Server 2.9.0 &lt;old&gt;), run"} {
		if !strings.Contains(md, want) {
			t.Errorf("compare.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "(server ") != 2 {
		t.Errorf("want the server named for the two runs that recorded one:\n%s", md)
	}
	page := HTML(runs, nil, 0.1)
	if !strings.Contains(page, "(server NATS Server 2.9.0 &lt;old&gt;), run") {
		t.Errorf("compare.html does not name the server, escaped")
	}
	for _, want := range []string{`data-series="nats-x@20260102T000000Z e2e"`, `data-series="redis-x e2e"`, "c1: 1KB at 3000 msg/s",
		`<title>redis-x e2e max: 9ms</title>`, `stroke="#2ca02c"`, `data-mq-ready`} {
		if !strings.Contains(page, want) {
			t.Errorf("compare.html lacks %s", want)
		}
	}
	if n := strings.Count(page, `data-chart="percentile"`); n != 2 {
		t.Errorf("%d charts, want one per cell", n)
	}
	if strings.Contains(page, "NaN") || strings.Count(page, `<g class="series"`) != 6 {
		t.Errorf("want 6 drawn series (the e2e of 3 runs in 2 cells; publish was not recorded), no NaN:\n%s", page)
	}
	if strings.Contains(page, "http://") && !strings.Contains(page, `xmlns="http://www.w3.org/2000/svg"`) || strings.Contains(page, "https://") {
		t.Error("compare.html refers to the network")
	}
}
