package jsmodule

import (
	"fmt"
	"hash/fnv"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/runner"
)

// shared makes runner i one of a shared destination's runners: the run's one run id (from
// MQ_RUN_ID: every runner derives the same), its role, and its clock. Its rate share is
// already in the plan's schedules.
func (rm *RootModule) shared(i int) runner.Option {
	h := fnv.New32a()
	_, _ = h.Write([]byte(rm.dist.RunID))
	produces, consumes := rm.dist.Role(i)
	cfg := runner.SharedConfig{RunID: h.Sum32(), Runner: i, Runners: rm.dist.Runners,
		Produces: produces, Consumes: consumes, ClockRef: rm.dist.ClockRef}
	if d, ok := testOnlyDuration(rm.getenv, TestSkewEnv, "-1.5s", true); ok {
		cfg.TestSkew = d
		fmt.Fprintf(os.Stderr, "mqbench: runner %d: clock shifted by %s for a test (%s)\n", i, d, TestSkewEnv)
	}
	return runner.WithShared(cfg)
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
