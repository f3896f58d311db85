// Package runenv is the run environment's contract: every MQ_* variable mqbench reads or
// sets (its name, default and meaning, from which docs/environment.md is generated) and the
// results layout (the root, a run's folder, its timestamp). It is the only place either is
// spelled; everything else uses these names.
package runenv

import "strconv"

// Prefix starts every variable of the contract (the k8s check compares them between pods).
const Prefix = "MQ_"

// The variables, by what they carry.
const (
	Scenario           = Prefix + "SCENARIO"
	Results            = Prefix + "RESULTS"
	Samples            = Prefix + "SAMPLES"
	Progress           = Prefix + "PROGRESS"
	K6Progress         = Prefix + "K6_PROGRESS"
	AllowFaultCommands = Prefix + "ALLOW_FAULT_COMMANDS"
	Runners            = Prefix + "RUNNERS"
	RunID              = Prefix + "RUN_ID"
	StartSlack         = Prefix + "START_SLACK"
	ClockRef           = Prefix + "CLOCK_REF"
	TestOnlyClockSkew  = Prefix + "TEST_ONLY_CLOCK_SKEW"
	TestOnlyClockSkews = Prefix + "TEST_ONLY_CLOCK_SKEWS"
	TestOnlySendDelay  = Prefix + "TEST_ONLY_SEND_DELAY"
)

// Var is one variable of the contract as the docs show it.
type Var struct {
	Name    string
	Default string // what an unset variable means
	Meaning string
}

// Vars is every variable, in the order the docs list them.
var Vars = []Var{
	{Scenario, "none; `k6 x mqbench run FILE` sets it", "the scenario file the entry script loads (plain `k6 run lib/mqbench.js -e " + Scenario + "=FILE`)"},
	{Results, "`" + DefaultRoot + "`", "the results root: a run writes `<root>/<scenario>/<UTC timestamp>/`; `--results DIR` wins over it"},
	{Samples, "the scenario's `samples`", "`aggregated` or `raw`: what k6 receives, for one run without editing the scenario"},
	{Progress, "every " + DefaultProgressEvery.String() + " without a terminal, off on one (`k6 x mqbench run`: 1s on a terminal)", "how often the progress line goes to stderr: a duration (`5s`, at least 100ms) or `off`"},
	{K6Progress, "off", "`1`: `k6 x mqbench run` keeps k6's own progress display (it passes `--quiet` otherwise)"},
	{AllowFaultCommands, "off: fault commands refused", "`1`: a scenario's faults may run their kill and start commands on this machine (as `--allow-fault-commands`)"},
	{Runners, "none: a plain run", "a distributed run's number of runners, 1 to " + strconv.Itoa(MaxRunners) + ": each runs one execution segment and writes a shard"},
	{RunID, "none: required with " + Runners, "the distributed run's id, the same for every runner: 1-64 letters, digits, `.`, `_`, `-`"},
	{StartSlack, DefaultStartSlack.String() + "; `k6 x mqbench k8s` sets its `--start-slack`", "a distributed runner starts its first cell this long after its setup began, so runners start together"},
	{ClockRef, "none: offsets not measured", "host:port of a reference clock (`k6 x mqbench clock --listen`) each runner measures its offset to"},
	{TestOnlyClockSkew, "none (a real run)", "tests only: shifts this runner's clock by a duration (`-1.5s`); the shard records it"},
	{TestOnlyClockSkews, "none (a real run)", "tests only: `k6 x mqbench distributed` gives runner i the i-th of these comma-separated durations as its " + TestOnlyClockSkew},
	{TestOnlySendDelay, "none (a real run)", "tests only: holds every message this long before its send (`70us`); the run says so on stderr"},
}
