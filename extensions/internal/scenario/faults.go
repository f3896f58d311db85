package scenario

// The faults block: node failures mqbench injects into every cell of a run against a local
// cluster (scripts/brokers/cluster.sh), so a scenario can ask "does a leader kill lose
// acknowledged messages?".

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// AllowFaultCommandsEnv set to 1 lets a scenario's faults run their kill and start commands
// (so does run's --allow-fault-commands): a scenario file from a stranger must not run a
// program merely by being run.
const AllowFaultCommandsEnv = runenv.AllowFaultCommands

// FaultCommandsOptIn says how to allow fault commands, for every message that refuses them.
const FaultCommandsOptIn = "k6 x mqbench run --allow-fault-commands or " + AllowFaultCommandsEnv + "=1"

// FaultCommandsAllowed reports whether the environment opted in to fault commands.
func FaultCommandsAllowed(getenv func(string) string) bool {
	return runenv.Flag(getenv, AllowFaultCommandsEnv)
}

// FaultCommands describes the commands a scenario's faults would run, quoted so that no
// byte of the file reaches a terminal raw: `kill: "…", start: "…"`; "" when it runs none.
func (f Faults) FaultCommands() string {
	if len(f.Schedule) == 0 {
		return ""
	}
	var parts []string
	for _, c := range []struct {
		name string
		args []string
	}{{"kill", f.Kill}, {"start", f.Start}} {
		if len(c.args) > 0 {
			parts = append(parts, c.name+": "+strconv.QuoteToASCII(strings.Join(c.args, " ")))
		}
	}
	return strings.Join(parts, ", ")
}

// CheckFaultCommands refuses a scenario whose faults would run commands unless the
// environment opted in; every path to a run calls it before anything connects.
func CheckFaultCommands(file string, sc *Scenario, getenv func(string) string) error {
	cmds := sc.Faults.FaultCommands()
	if cmds == "" || FaultCommandsAllowed(getenv) {
		return nil
	}
	return fmt.Errorf("%s: faults: the scenario runs commands on this machine (%s); they run only with %s", file, cmds, FaultCommandsOptIn)
}

// nodeName is what a fault's node may be, written in a scenario or reported by a broker:
// it is put into a command's arguments, so it must not look like an option (-…) or hold
// spaces, quotes or control characters.
var nodeName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@:+-]{0,252}$`)

// ValidNodeName reports whether s may name a node in a fault command.
func ValidNodeName(s string) bool { return nodeName.MatchString(s) }

// maxFaults bounds the schedule (a typo guard: a fault per second of a long cell is a test
// of the scripts, not of the broker).
const maxFaults = 20

func (d *decoder) faults(rf *rawFaults, cells []Cell, b Broker) Faults {
	brokerType := b.Type
	const p = "faults"
	if !d.set(p) {
		return Faults{}
	}
	f := Faults{Kill: d.command(p+".kill", rf.Kill), Start: d.command(p+".start", rf.Start)}
	if !d.set(p + ".schedule") {
		d.missing(p + ".schedule")
		return f
	}
	if len(rf.Schedule) > maxFaults {
		d.errorf(p+".schedule", "has %d faults; at most %d are allowed", len(rf.Schedule), maxFaults)
	}
	if len(rf.Schedule) > 0 && !d.set(p+".kill") && d.usable(p) {
		d.missing(p + ".kill")
	}
	var shortest time.Duration
	for _, c := range cells {
		if shortest == 0 || c.Duration < shortest {
			shortest = c.Duration
		}
	}
	topology, _ := capable(b, specTopology)
	for i := range rf.Schedule {
		fp := fmt.Sprintf("%s.schedule[%d]", p, i)
		if d.bad[fp] {
			continue
		}
		rw := &rf.Schedule[i]
		ft := Fault{Node: rw.Node, At: d.durIn(fp+".at", rw.At, 0, 0, 0),
			RestartAfter: d.durIn(fp+".restart_after", rw.RestartAfter, 0, 0, 0)}
		if !d.set(fp + ".at") {
			d.missing(fp + ".at")
		} else if d.usable(fp+".at") && shortest > 0 && ft.At >= shortest {
			d.errorf(fp+".at", "must fall inside every cell's measured period (shortest: %s), got %s", fmtDuration(shortest), d.vals[fp+".at"].Value)
		}
		switch {
		case !d.set(fp + ".node"):
			d.missing(fp + ".node")
		case !d.usable(fp + ".node"):
		case !ValidNodeName(rw.Node):
			d.errorf(fp+".node", "must be leader, follower or a node's name (like n2), got %q", rw.Node)
		case (rw.Node == FaultLeader || rw.Node == FaultFollower) && !topology && brokerType != "":
			d.errorf(fp+".node", "%s needs a broker that tells where the destination lives; the %s driver does not (with these options): name the node (like n2)", rw.Node, brokerType)
		}
		if ft.RestartAfter > 0 && d.usable(fp+".at") && d.usable(fp+".restart_after") && shortest > 0 && ft.At < shortest && ft.At+ft.RestartAfter >= shortest {
			d.errorf(fp+".restart_after", "the restart must fall inside every cell's measured period too (at + restart_after < %s), got %s", fmtDuration(shortest), d.vals[fp+".restart_after"].Value)
		}
		if ft.RestartAfter > 0 && !d.set(p+".start") && d.usable(p) {
			d.add(d.where(fp+".restart_after"), p+".start", "required when a fault has restart_after")
		}
		f.Schedule = append(f.Schedule, ft)
	}
	return f
}

// command splits a command template into arguments; it must name a program and may use
// {n} and {node} (nothing else in braces).
func (d *decoder) command(path, v string) []string {
	if !d.usable(path) {
		return nil
	}
	args := strings.Fields(v)
	if len(args) == 0 {
		d.errorf(path, "must not be empty: a command like scripts/brokers/cluster.sh kill nats {n}")
		return nil
	}
	for _, a := range args {
		rest := strings.NewReplacer("{n}", "", "{node}", "").Replace(a)
		if strings.ContainsAny(rest, "{}") {
			d.errorf(path, "unknown placeholder in %q (valid: {n}, the node's number; {node}, its name)", a)
			return nil
		}
	}
	return args
}
