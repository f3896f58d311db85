package jsmodule

import (
	"errors"
	"fmt"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
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
		return exitcode.Unreachable, "mqbench: " + ue.Error()
	}
	return exitcode.Refused, "mqbench: broker refused the run: " + err.Error()
}
