package jsmodule

import (
	"fmt"
	"os"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/exitcode"
)

// TestSkewEnv shifts this runner's clock by a duration ("-1.5s", "250ms"): a test-only fault
// for checking the clock-offset correction. A real run never sets it; a shard that had it
// says so (test_only_skew_ns) and the runner prints a warning.
const TestSkewEnv = "MQ_TEST_ONLY_CLOCK_SKEW"

// TestSendDelayEnv holds every message that long between its stamp and its send ("70us"): a
// regression of known size for measuring the regression gate (scripts/gate-noise.sh). A real
// run never sets it; a run that has it says so on stderr.
const TestSendDelayEnv = "MQ_TEST_ONLY_SEND_DELAY"

// testOnlyDuration reads a test-only duration variable: (0, false) when unset; a value that
// does not parse, or is negative where that means nothing, ends the run with an example.
func testOnlyDuration(env, example string, negativeOK bool) (time.Duration, bool) {
	v := os.Getenv(env)
	if v == "" {
		return 0, false
	}
	d, err := time.ParseDuration(v)
	if err != nil || (d < 0 && !negativeOK) {
		fatal(exitcode.InvalidScenario, fmt.Sprintf("mqbench: %s=%q: expected a duration like %s", env, v, example))
	}
	return d, true
}
