package runner

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
	"github.com/mqbench/xk6-mqbench/internal/version"
)

// The summary names what made the run: the build's versions, the scenario file's hash and
// the pacing the fixed-rate sends got (precise only where the pacer has its kernel timer).
func TestReportNamesItsMaking(t *testing.T) {
	for _, c := range []struct{ pacing, want string }{
		{scenario.PacingPrecise, map[bool]string{true: scenario.PacingPrecise, false: scenario.PacingTimer}[pacer.Precise()]},
		{scenario.PacingTimer, scenario.PacingTimer},
	} {
		sc := embeddedScenario(scenario.Cell{ID: "c1", Size: 64, SizeLabel: "64B", Rate: 100, Batch: 1, Producers: 1, Consumers: 1, Duration: time.Second})
		sc.Workload.Pacing = c.pacing
		sc.SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
		r, err := newRunner(sc)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close(context.Background()) })
		rep := r.Report()
		v := version.Get()
		if rep.Mqbench == "" || rep.Mqbench != v.Mqbench || rep.K6 != v.K6 || rep.Go != runtime.Version() {
			t.Errorf("pacing %s: versions mqbench %q, k6 %q, go %q; want %+v", c.pacing, rep.Mqbench, rep.K6, rep.Go, v)
		}
		if rep.ScenarioSHA256 != sc.SHA256 || rep.Pacing != c.want {
			t.Errorf("pacing %s: scenario_sha256 %q, pacing %q; want %q, %q", c.pacing, rep.ScenarioSHA256, rep.Pacing, sc.SHA256, c.want)
		}
	}
}
