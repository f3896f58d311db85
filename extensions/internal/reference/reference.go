// Package reference is the option reference of every broker driver: key, type, default,
// allowed values, modes and description of each option a scenario's `broker.<type>` block
// accepts. `k6 x mqbench explain` prints it and docs/drivers.md is the same data as Markdown.
//
// The data is generated (zz_generated.go) by package refgen from the drivers' own options
// structs: descriptions are their Go doc comments, defaults come from running their
// Defaults, so the reference cannot drift from the code; reference_test.go fails when the
// generated files are stale. The package itself imports nothing of the drivers, so the k6
// binary does not carry the generator.
package reference

//go:generate go run ./gen

import (
	"fmt"
	"strings"
)

// Broker is one registered driver's reference.
type Broker struct {
	Name        string   // registered name, the value of broker.type ("kafka")
	Summary     string   // one line: what the driver speaks (from its line in driver/all)
	About       string   // the first paragraph of the driver's package documentation
	DefaultURL  string   // broker.url when the scenario gives none
	URL         string   // the forms broker.url accepts
	URLExamples []string // urls the driver's url check accepts (tested)
	Destination string   // what workload.destination names for this broker
	ModeKey     string   // the option that chooses the mode ("mode", "queue_type"); "" = one mode
	Modes       []Mode   // in the order the driver documents them
	Options     []Option // every key of the block, blocks before their keys, in declaration order
	Example     string   // path of a shipped scenario, relative to the repository root
	ExampleYAML string   // that file's text
}

// Mode is one value of the broker's mode key, with what it means for measurement.
type Mode struct {
	Name     string // "jetstream"; "" for a broker without modes
	AckMode  string // what publish latency waits for (summary.json broker.ack_mode)
	Promises bool   // promises delivery: mq_messages_lost: count == 0 is a default threshold
}

// Option is one key of a broker's options block.
type Option struct {
	Key         string   // YAML path inside broker.<type>: "topic.replication_factor"
	Type        string   // as a user writes it: string, integer, duration, boolean, map, block, …
	Default     string   // after the driver's Defaults; "" for a block
	Values      []string // the only values Validate accepts (an enumeration), or nil
	Min, Max    string   // the range Validate accepts, as written in YAML; "" = unbounded
	Rule        string   // what Values, Min and Max cannot say ("true only with acks all")
	Modes       []string // the modes the key has an effect in; nil = every mode
	Description string   // the field's doc comment, Go names replaced by YAML keys
}

// Allowed says in words which values Validate accepts; "" when any value of the type goes.
func (o Option) Allowed() string {
	var parts []string
	switch {
	case len(o.Values) > 0:
		parts = append(parts, strings.Join(o.Values, ", "))
	case o.Min != "" && o.Max != "":
		parts = append(parts, o.Min+" to "+o.Max)
	case o.Min != "":
		parts = append(parts, "at least "+o.Min)
	case o.Max != "":
		parts = append(parts, "at most "+o.Max)
	}
	if o.Rule != "" {
		parts = append(parts, o.Rule)
	}
	return strings.Join(parts, "; ")
}

// ModesText names the modes the option has an effect in ("" for a broker without modes).
func (o Option) ModesText(b Broker) string {
	if b.ModeKey == "" {
		return ""
	}
	if len(o.Modes) == 0 {
		return "all"
	}
	return strings.Join(o.Modes, ", ")
}

// brokers is filled by zz_generated.go's init, so this package still compiles (empty)
// while the generated file is being rewritten.
var brokers []Broker

// Brokers returns every broker's reference, sorted by name.
func Brokers() []Broker { return brokers }

// Lookup returns the named broker's reference or an error listing the valid names.
func Lookup(name string) (Broker, error) {
	for _, b := range brokers {
		if b.Name == name {
			return b, nil
		}
	}
	return Broker{}, fmt.Errorf("unknown broker %q (valid: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the brokers, sorted.
func Names() []string {
	names := make([]string, len(brokers))
	for i, b := range brokers {
		names[i] = b.Name
	}
	return names
}

// Key is one top-level scenario key, for the overview.
type Key struct {
	Name, Meaning string
}

// TopLevel lists the keys of a scenario file in the order a file usually has them;
// reference_test.go checks it against the scenario parser's own list.
var TopLevel = []Key{
	{"name", "scenario name, equals the file stem; names results/<name>/ (required)"},
	{"description", "free text"},
	{"broker", "type (the driver), url, and the driver's own block keyed by type: broker.kafka, …"},
	{"workload", "destination, producers, consumers, consumer_rate, payload, batch, warmup, duration, drain, vus, max_vus, pacing"},
	{"matrix", "the cells, run one after another: size, rate, and per-cell overrides (required)"},
	{"thresholds", "k6 threshold expressions per metric, judged for every cell"},
	{"validity", "allow_dropped_iterations: tolerate a generator that could not hold the rate"},
	{"samples", "what k6 receives: aggregated (default) or raw"},
	{"faults", "kill and start commands ({n}: node number) and a schedule of node kills per cell: at, node (leader, follower or a name), restart_after"},
	{"search", "capacity search (k6 x mqbench search): max_rate, step, precision, confirm, backlog_growth; each cell's rate is where it starts"},
	{"distributed", "a distributed run's destination: per-runner (default) or shared; with shared, producers: P and consumers: C runners that only produce or only consume"},
}
