package compare

import (
	"sort"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// Provenance is the gate's warnings about what made the runs: a baseline and a candidate
// made by different mqbench builds or from different scenario files may differ for that
// reason alone, and a summary.json written before they were recorded cannot say. Warnings,
// not failures: the gate's verdict and exit code stay the figures'. One line each, cleaned
// (the values come from summary.json files, perhaps a pull request's).
func Provenance(bases, cands []*results.Run) []string {
	var out []string
	for _, side := range []struct {
		name string
		runs []*results.Run
	}{{"baseline", bases}, {"candidate", cands}} {
		for _, r := range side.runs {
			var missing []string
			if r.Mqbench == "" {
				missing = append(missing, "mqbench version")
			}
			if r.ScenarioSHA256 == "" {
				missing = append(missing, "scenario_sha256")
			}
			if len(missing) > 0 {
				out = append(out, "warning: "+side.name+" "+r.Dir+" records no "+strings.Join(missing, " or ")+
					" (its summary.json predates them): cannot tell whether baseline and candidate ran the same build and scenario file")
			}
		}
	}
	for _, f := range []struct {
		name string
		of   func(*results.Run) string
	}{
		{"mqbench version", func(r *results.Run) string { return r.Mqbench }},
		{"scenario_sha256 (another scenario file)", func(r *results.Run) string { return r.ScenarioSHA256 }},
	} {
		b, c := values(bases, f.of), values(cands, f.of)
		if len(b) == 0 || len(c) == 0 || (len(b) == 1 && len(c) == 1 && b[0] == c[0]) {
			continue
		}
		out = append(out, "warning: baseline and candidate differ in "+f.name+": baseline "+strings.Join(b, ", ")+", candidate "+strings.Join(c, ", "))
	}
	for i := range out {
		out[i] = textclean.Clean(out[i])
	}
	return out
}

// values are the distinct non-empty values of one field over runs, sorted.
func values(runs []*results.Run, of func(*results.Run) string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		if v := of(r); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}
