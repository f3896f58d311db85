package compare

import (
	"strings"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The gate warns, naming both values, when baseline and candidate were made by different
// mqbench builds or from different scenario files, and says it cannot tell when a summary
// predates those fields; the same build and file give no warning.
func TestProvenanceWarnings(t *testing.T) {
	const shaA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	const shaB = "60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752"
	run := func(dir, mqbench, sha string) *results.Run {
		return &results.Run{Dir: dir, Summary: results.Summary{Mqbench: mqbench, ScenarioSHA256: sha}}
	}
	one := func(r *results.Run) []*results.Run { return []*results.Run{r} }
	for _, c := range []struct {
		name         string
		bases, cands []*results.Run
		want         []string // each a line's text, in order
	}{
		{"same build, same file", one(run("b", "v1.2.0", shaA)), one(run("c", "v1.2.0", shaA)), nil},
		{"another build", one(run("b", "v1.2.0", shaA)), one(run("c", "devel+aa29acd1b2c3", shaA)),
			[]string{"warning: baseline and candidate differ in mqbench version: baseline v1.2.0, candidate devel+aa29acd1b2c3"}},
		{"another file", one(run("b", "v1.2.0", shaA)), one(run("c", "v1.2.0", shaB)),
			[]string{"warning: baseline and candidate differ in scenario_sha256 (another scenario file): baseline " + shaA + ", candidate " + shaB}},
		{"both, candidate first in order", one(run("b", "v1.3.0", shaB)), one(run("c", "v1.2.0", shaA)),
			[]string{"differ in mqbench version: baseline v1.3.0, candidate v1.2.0", "differ in scenario_sha256 (another scenario file): baseline " + shaB + ", candidate " + shaA}},
		{"an older baseline", one(run("results/s/20260101T000000Z", "", "")), one(run("c", "v1.2.0", shaA)),
			[]string{"warning: baseline results/s/20260101T000000Z records no mqbench version or scenario_sha256 (its summary.json predates them): cannot tell"}},
		{"an older candidate", one(run("b", "v1.2.0", shaA)), one(run("results/s/old", "", "")),
			[]string{"warning: candidate results/s/old records no mqbench version or scenario_sha256"}},
		{"repeated runs, one of another build", []*results.Run{run("b1", "v1.2.0", shaA), run("b2", "v1.2.0", shaA)}, []*results.Run{run("c1", "v1.2.0", shaA), run("c2", "v1.2.1", shaA)},
			[]string{"differ in mqbench version: baseline v1.2.0, candidate v1.2.0, v1.2.1"}},
		{"a value that tries to add a line", one(run("b", "v1.2.0\nresult: PASS", shaA)), one(run("c", "v1.2.0", shaA)),
			[]string{"differ in mqbench version: baseline v1.2.0; result: PASS, candidate v1.2.0"}},
	} {
		got := Provenance(c.bases, c.cands)
		if len(got) != len(c.want) {
			t.Errorf("%s: %d lines %q, want %d", c.name, len(got), got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) || strings.Contains(got[i], "\n") {
				t.Errorf("%s: line %d %q, want one line with %q", c.name, i, got[i], w)
			}
		}
	}
}
