// Package exitcode is the one table of mqbench's exit codes (k6's own beside them), like
// k6's errext/exitcodes: commands return an *Error carrying its code, so they can be tested
// in-process, and the docs' exit-code table is written from Table.
package exitcode

import (
	"errors"
	"fmt"

	"go.k6.io/k6/v2/errext"
	"go.k6.io/k6/v2/errext/exitcodes"
)

// Codes beside k6's own. They are distinct so a pipeline can tell a breached SLA from a
// broken scenario, a broken broker or a broken command line.
const (
	OK                = 0
	Regressed         = 1   // compare: the candidate regressed beyond the tolerance
	Usage             = 2   // bad arguments to a command, or a folder it cannot read
	ThresholdsFailed  = 99  // k6's ThresholdsHaveFailed: a threshold failed (also merge's verdict)
	Aborted           = 105 // k6's ExternalAbort: stopped by a signal, what was measured is written
	InvalidScenario   = 111 // the scenario file does not parse or validate; nothing connected
	Unreachable       = 112 // the broker could not be reached at all
	Refused           = 113 // the broker answered but refused: credentials, permissions, destination
	InvalidMerge      = 114 // the shards of a distributed run do not make one run
	ResultsUnwritable = 115 // the results folder cannot be created or written
	SelfcheckFailed   = 116 // selfcheck: a check failed, or the self-check could not measure
	// GeneratorBehind: run: the load generator could not start sends on schedule (dropped
	// iterations) and every broker threshold held; a breach (99) wins over it.
	GeneratorBehind = 117
	// StepFailed: search, ladder: a step could not run or be read back, so the search
	// stopped (not the broker's verdict, which a step's own code gives).
	StepFailed = 118
)

// Compile-time checks that the k6 codes above are k6's.
var (
	_ = [1]struct{}{}[ThresholdsFailed-int(exitcodes.ThresholdsHaveFailed)]
	_ = [1]struct{}{}[Aborted-int(exitcodes.ExternalAbort)]
)

// Entry is one row of the exit-code table.
type Entry struct {
	Code     int
	Meaning  string
	Commands string // which commands give it
}

// Table lists every exit code mqbench's commands give, in order.
var Table = []Entry{
	{OK, "passed: every threshold held (compare: no regression; selfcheck: every check)", "run, search, merge, compare, validate, selfcheck, distributed"},
	{Regressed, "compare: a cell regressed beyond the tolerance and the run-to-run noise", "compare"},
	{Usage, "bad arguments (an unknown command or flag, a wrong number of arguments), or a results folder that cannot be read", "every command"},
	{ThresholdsFailed, "a threshold failed (k6's code)", "run, search, merge, distributed"},
	{Aborted, "stopped by a signal; what was measured is written (k6's code)", "run, search, distributed"},
	{InvalidScenario, "invalid scenario: every problem listed, nothing connected", "run, validate, search, explain, k8s, distributed"},
	{Unreachable, "broker unreachable: one line naming broker and address", "run, search"},
	{Refused, "broker answered but refused: credentials, permissions, destination", "run, search"},
	{InvalidMerge, "invalid distributed run: shards that do not make one run, or a runner that is not a valid segment of one", "run, merge, distributed"},
	{ResultsUnwritable, "the results folder cannot be created or written", "run, selfcheck, distributed"},
	{SelfcheckFailed, "a self-check failed: a known injected delay or stall was not reported (or not measured)", "selfcheck"},
	{GeneratorBehind, "the load generator could not hold the schedule (k6 dropped iterations) and no broker threshold failed: the measurement is invalid, not the broker; 99 when a broker threshold failed too", "run, merge, distributed"},
	{StepFailed, "a search or ladder step, or a distributed runner, could not run or be read back", "run, search, ladder, distributed"},
}

// Error is a command's failure: one readable message and the process's exit code.
type Error struct {
	Code int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// ExitCode makes an *Error k6's errext.HasExitCode.
func (e *Error) ExitCode() exitcodes.ExitCode { return exitcodes.ExitCode(e.Code) } //nolint:gosec // codes < 256

var _ errext.HasExitCode = (*Error)(nil)

// New returns an *Error with a formatted message.
func New(code int, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Of returns the exit code an error carries: 0 for nil, the code of an *Error or of any
// k6 error with one, else -1 (k6's own for an error without a code).
func Of(err error) int {
	if err == nil {
		return OK
	}
	var hc errext.HasExitCode
	if errors.As(err, &hc) {
		return int(hc.ExitCode())
	}
	return -1
}
