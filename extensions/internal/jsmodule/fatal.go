package jsmodule

import (
	"errors"
	"fmt"
	"os"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/exitcode"
	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/textclean"
)

// fatal prints one readable message and ends the process. It is only used before any load
// starts (init context and setup), when nothing has been measured that could be lost; the
// k6 error path would add a JavaScript stack trace and exit 107 for every case. The message
// may quote a scenario or a broker: its lines lose escape sequences and credentials.
func fatal(code int, msg string) {
	fmt.Fprintln(os.Stderr, textclean.Lines(redact.Secrets(msg)))
	os.Exit(code)
}

// exitForConnectError classifies an error from connecting to the broker. The message is one
// line without credentials: it is also summary.json's error and summary.txt's NOT RUN line.
func exitForConnectError(err error) (int, string) {
	var ue *driver.UnreachableError
	if errors.As(err, &ue) {
		return exitcode.Unreachable, "mqbench: " + textclean.Clean(redact.Secrets(ue.Error()))
	}
	return exitcode.Refused, "mqbench: broker refused the run: " + textclean.Clean(redact.Secrets(err.Error()))
}
