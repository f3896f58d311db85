package jsmodule

import (
	"fmt"
	"hash/fnv"
	"os"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/plan"
	"github.com/mqbench/xk6-mqbench/internal/runner"
)

// TestSkewEnv shifts this runner's clock by a duration ("-1.5s", "250ms"): a test-only fault
// for checking the clock-offset correction. A real run never sets it; a shard that had it
// says so (test_only_skew_ns) and the runner prints a warning.
const TestSkewEnv = "MQ_TEST_ONLY_CLOCK_SKEW"

// TestSendDelayEnv holds every message that long between its stamp and its send ("70us"): a
// regression of known size for measuring the regression gate (scripts/gate-noise.sh). A real
// run never sets it; a run that has it says so on stderr.
const TestSendDelayEnv = "MQ_TEST_ONLY_SEND_DELAY"

// joinShared makes runner i one of a shared destination's runners: the run's one run id
// (from MQ_RUN_ID: every runner derives the same), its role, and its clock.
func (rm *RootModule) joinShared(i int) {
	h := fnv.New32a()
	_, _ = h.Write([]byte(rm.dist.RunID))
	produces, consumes := rm.dist.Role(i)
	num, den := plan.RateScale(rm.run.Scenario(), rm.dist.Runners)
	cfg := runner.SharedConfig{RunID: h.Sum32(), Runner: i, Runners: rm.dist.Runners,
		Produces: produces, Consumes: consumes, RateNum: num, RateDen: den, ClockRef: rm.dist.ClockRef}
	if v := os.Getenv(TestSkewEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fatal(exitcode.InvalidScenario, fmt.Sprintf("mqbench: %s=%q: expected a duration like -1.5s", TestSkewEnv, v))
		}
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
