package runenv

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Getenv reads one variable: os.Getenv in a run; a map's lookup in tests and where the
// environment is another process's (the k8s generator judges what its pods will get).
type Getenv func(string) string

// Error is a variable whose value cannot be used; its text names the variable and the value.
type Error struct {
	Name, Value string
	Want        string // what would do, e.g. "expected a duration like 5s"
}

func (e *Error) Error() string { return fmt.Sprintf("%s=%q: %s", e.Name, e.Value, e.Want) }

// Entry is NAME=VALUE, one entry of a child process's environment.
func Entry(name, value string) string { return name + "=" + value }

// Flag reports whether name is set to 1 (the only value that opts in: "0", "yes" do not).
func Flag(getenv Getenv, name string) bool { return getenv(name) == "1" }

// Root is the results root: MQ_RESULTS, else DefaultRoot.
func Root(getenv Getenv) string {
	if v := getenv(Results); v != "" {
		return v
	}
	return DefaultRoot
}

// OneOf reads a variable that takes one of allowed; "" when unset.
func OneOf(getenv Getenv, name string, allowed ...string) (string, error) {
	v := getenv(name)
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	if v == "" {
		return "", nil
	}
	return "", &Error{name, v, "expected " + strings.Join(allowed, " or ")}
}

// Duration reads a duration variable: set is false when it is unset or empty. A value that
// does not parse, or is negative where that means nothing, is an error showing example.
func Duration(getenv Getenv, name, example string, negativeOK bool) (d time.Duration, set bool, err error) {
	v := getenv(name)
	if v == "" {
		return 0, false, nil
	}
	d, err = time.ParseDuration(v)
	if err != nil || (d < 0 && !negativeOK) {
		return 0, true, &Error{name, v, "expected a duration like " + example}
	}
	return d, true, nil
}

// MaxRunners bounds MQ_RUNNERS.
const MaxRunners = 1000

// DefaultStartSlack is a distributed runner's wait after its setup began when MQ_START_SLACK is unset.
const DefaultStartSlack = 5 * time.Second

// RunnerCount reads MQ_RUNNERS: 0 when unset (a plain run; 1 is a distributed run of one
// runner, a shard to merge).
func RunnerCount(getenv Getenv) (int, error) {
	v := strings.TrimSpace(getenv(Runners))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > MaxRunners {
		return 0, &Error{Runners, v, fmt.Sprintf("expected a number of runners from 1 to %d", MaxRunners)}
	}
	return n, nil
}

var runIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// SharedRunID reads MQ_RUN_ID, which a distributed run needs (the value is returned with the error too).
func SharedRunID(getenv Getenv) (string, error) {
	id := getenv(RunID)
	if !runIDRE.MatchString(id) {
		return id, &Error{RunID, id, "a distributed run needs one id shared by every runner (1-64 letters, digits, '.', '_', '-')"}
	}
	return id, nil
}

// ClockAddr reads MQ_CLOCK_REF (host:port, "" when unset).
func ClockAddr(getenv Getenv) string { return strings.TrimSpace(getenv(ClockRef)) }

// DefaultProgressEvery is the progress line's interval when stdout is not a terminal.
const DefaultProgressEvery = 10 * time.Second

// ProgressEvery reads MQ_PROGRESS: a duration of at least 100ms, or off (0). Unset: every
// DefaultProgressEvery off a terminal (CI logs), off on one, where `k6 run` draws its own
// bars. A value that does not parse keeps the default: progress never stops a run.
func ProgressEvery(getenv Getenv, terminal bool) time.Duration {
	v := strings.TrimSpace(getenv(Progress))
	switch v {
	case "":
		if terminal {
			return 0
		}
		return DefaultProgressEvery
	case "off", "0", "false", "no":
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 100*time.Millisecond {
		return DefaultProgressEvery
	}
	return d
}
