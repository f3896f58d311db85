package merge

import (
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// The merged summary.json names the runners' build, scenario hash and pacing, as each
// runner's summary did.
func TestMergedSummaryNamesItsMaking(t *testing.T) {
	made := func(_ *results.Shard, s *results.Summary) {
		s.Mqbench, s.K6, s.Go, s.ScenarioSHA256, s.Pacing = "v1.2.0", "v2.1.0", "go1.26.7", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "precise"
	}
	var runners []mergetest.Runner
	for i := range 2 {
		runners = append(runners, mergetest.Runner{I: i + 1, N: 2, Edit: made, Cells: []mergetest.Cell{{ID: "c1", E2E: []int64{1e6, 2e6}}}})
	}
	s, _ := Merge(load(t, write(t, runners...)))
	var want results.Summary
	made(nil, &want)
	if got := [5]string{s.Mqbench, s.K6, s.Go, s.ScenarioSHA256, s.Pacing}; got != [5]string{want.Mqbench, want.K6, want.Go, want.ScenarioSHA256, want.Pacing} {
		t.Errorf("merged summary names %q, want the runners' %+v", got, want)
	}
}
