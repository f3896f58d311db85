package jsmodule

import (
	"fmt"
	"hash/fnv"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/runner"
)

// joinShared makes runner i one of a shared destination's runners: the run's one run id
// (from MQ_RUN_ID: every runner derives the same), its role, and its clock.
func (rm *RootModule) joinShared(i int) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(rm.dist.RunID))
	produces, consumes := rm.dist.Role(i)
	num, den := plan.RateScale(rm.run.Scenario(), rm.dist.Runners)
	cfg := runner.SharedConfig{RunID: h.Sum32(), Runner: i, Runners: rm.dist.Runners,
		Produces: produces, Consumes: consumes, RateNum: num, RateDen: den, ClockRef: rm.dist.ClockRef}
	if d, ok := testOnlyDuration(TestSkewEnv, "-1.5s", true); ok {
		cfg.TestSkew = d
		fmt.Fprintf(os.Stderr, "mqbench: runner %d: clock shifted by %s for a test (%s)\n", i, d, TestSkewEnv)
	}
	rm.run.JoinShared(cfg)
}

// role names runner i's role in the shard.
func (rm *RootModule) role() string {
	switch p, c := rm.dist.Role(rm.runner); {
	case p && c:
		return "both"
	case p:
		return "produce"
	}
	return "consume"
}
