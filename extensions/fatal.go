package mqbench

import (
	"errors"
	"fmt"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Exit codes beside k6's own (0 pass, 99 thresholds failed, 105 aborted by a signal, …).
// They are distinct so a pipeline can tell a broken scenario from a broken broker.
const (
	ExitInvalidScenario = 111 // the scenario file does not parse or validate
	ExitUnreachable     = 112 // the broker could not be reached at all
	ExitBrokerRejected  = 113 // the broker answered but refused: credentials, permissions, destination
	ExitInvalidMerge    = 114 // the shards of a distributed run do not make one run (merge)
)

// fatal prints one readable message and ends the process. It is only used before any load
// starts (init context and setup), when nothing has been measured that could be lost; the
// k6 error path would add a JavaScript stack trace and exit 107 for every case.
func fatal(code int, msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(code)
}

// exitForConnectError classifies an error from connecting to the broker.
func exitForConnectError(err error) (int, string) {
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		return ExitUnreachable, "mqbench: " + ue.Error()
	}
	return ExitBrokerRejected, "mqbench: broker refused the run: " + err.Error()
}
