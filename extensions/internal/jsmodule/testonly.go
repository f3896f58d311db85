package jsmodule

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// TestSkewEnv shifts this runner's clock by a duration ("-1.5s", "250ms"): a test-only fault
// for checking the clock-offset correction. A real run never sets it; a shard that had it
// says so (test_only_skew_ns) and the runner prints a warning.
const TestSkewEnv = runenv.TestOnlyClockSkew

// TestSendDelayEnv holds every message that long between its stamp and its send ("70us"): a
// regression of known size for measuring the regression gate (the gate bench section). A real
// run never sets it; a run that has it says so on stderr.
const TestSendDelayEnv = runenv.TestOnlySendDelay

// testOnlyDuration reads a test-only duration variable: (0, false) when unset; a value that
// does not parse, or is negative where that means nothing, ends the run with an example.
func testOnlyDuration(getenv runenv.Getenv, env, example string, negativeOK bool) (time.Duration, bool) {
	d, set, err := runenv.Duration(getenv, env, example, negativeOK)
	if err != nil {
		fatal(exitcode.InvalidScenario, "mqbench: "+err.Error())
	}
	return d, set
}
