package report

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// summary.txt shows each size of a mix and each named stage (once, bursts sharing a name)
// with its latencies; a run without either has no such table.
func TestPartsTable(t *testing.T) {
	e2e := hist.Stats{Count: 3, Max: 900, P: map[string]float64{"p50": 100, "p99": 800}}
	s := &results.Summary{Scenario: "parts", Cells: []results.Cell{{ID: "c1", SizeLabel: "mix",
		Sizes: []results.SizeClass{{Size: "256B", SizeBytes: 256, SharePct: 70, Sent: 7, Received: 7, E2ELatency: e2e, E2EIntendedLatency: e2e},
			{Size: "4KB", SizeBytes: 4096, SharePct: 30, Sent: 3, Received: 2}},
		Stages: []results.Stage{{Target: 10}, {Name: "burst", Target: 100, E2ELatency: &e2e}, {Name: "burst", Target: 100, E2ELatency: &e2e}}}}}
	text := Text(s)
	for _, want := range []string{"per size of a mix and per named stage", "c1      size 256B    70%     7         7  100.0us  800.0us  900.0us", "c1       size 4KB    30%     3         2        -", "c1    stage burst      -     -         3  100.0us"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary.txt lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "stage burst") != 1 {
		t.Errorf("bursts sharing a name are one row:\n%s", text)
	}
	if plain := Text(&results.Summary{Scenario: "p", Cells: []results.Cell{{ID: "c1", SizeLabel: "1KB"}}}); strings.Contains(plain, "per size of a mix") {
		t.Errorf("a run without parts has a parts table:\n%s", plain)
	}
}
