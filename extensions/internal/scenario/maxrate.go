package scenario

// `rate: max`: the closed-loop cell. A fixed rate is an open model (messages issued on
// schedule whatever the broker does); `max` is the other benchmark people run (RabbitMQ's
// PerfTest, Kafka's producer perf tool, OMB's max-rate mode): each producer sends as fast as
// the broker acknowledges, never more than `inflight` messages unacknowledged.

import (
	"fmt"
	"strconv"
	"time"

	"gopkg.in/yaml.v3"
)

const (
	// maxInflight bounds a closed-loop producer's window (the runner's acknowledgement
	// queue holds this many per producer).
	maxInflight = 1 << 16
	// DefaultInflight is a closed-loop producer's window when the cell gives none: PerfTest's
	// `--confirm` runs and RabbitMQ's AMQP benchmarks use a few hundred; 1,000 keeps a
	// broker's batching busy without hiding its acknowledgement latency.
	DefaultInflight = 1000
	// DefaultMaxLimit is a closed-loop cell's time limit when it counts messages and gives
	// no duration of its own: the k6 schedule needs an end for the cell's slot.
	DefaultMaxLimit = 10 * time.Minute
)

// parseRate reads a cell's rate: an integer count per second or "max".
func parseRate(n *yaml.Node) (rate int, isMax bool, msg string) {
	const want = "expected messages per second (like 3000) or max"
	if n.Kind != yaml.ScalarNode {
		return 0, false, fmt.Sprintf("%s, got %s", want, describe(n))
	}
	switch n.ShortTag() {
	case intTag:
		v, err := strconv.ParseInt(n.Value, 0, 64)
		switch {
		case err != nil && n.Value[0] != '-':
			return 0, false, fmt.Sprintf("%s exceeds the limit of %d messages per second", n.Value, maxRate)
		case err != nil || v < 1:
			return 0, false, fmt.Sprintf("must be at least 1 message per second (or max), got %s", n.Value)
		case v > maxRate:
			return 0, false, fmt.Sprintf("%d exceeds the limit of %d messages per second", v, maxRate)
		}
		return int(v), false, ""
	case strTag:
		if n.Value == RateMax {
			return 0, true, ""
		}
		return 0, false, fmt.Sprintf("%s, got %q", want, n.Value)
	}
	return 0, false, fmt.Sprintf("%s, got %s", want, describe(n))
}

// closedLoop applies the rules of a `rate: max` cell, or refuses its keys on a fixed-rate
// cell: inflight is its window; batch, vus and max_vus size k6's arrival-rate schedule, which
// a closed loop does not have; messages counts what it sends, and duration is then its limit
// (needed unless the cell is the last: see below).
func (d *decoder) closedLoop(c *Cell, rc *rawCell, p string, last bool) {
	if !c.Max {
		if d.set(p + ".inflight") {
			d.errorf(p+".inflight", "applies to rate: max cells only (a fixed rate is paced by its schedule, not by acknowledgements)")
		}
		return
	}
	c.Inflight = d.intIn(p+".inflight", rc.Inflight, DefaultInflight, 1, maxInflight)
	for _, k := range []string{"batch", "vus", "max_vus"} {
		if d.set(p + "." + k) {
			d.errorf(p+"."+k, "does not apply to rate: max: a closed-loop producer sends one message at a time within its in-flight window, without a k6 arrival-rate schedule")
		}
	}
	c.Batch, c.VUs, c.MaxVUs = 1, 0, 0
	if !d.set(p + ".messages") {
		return // duration (the cell's or the workload's) is the measured time
	}
	if d.usable(p+".messages") && (rc.Messages < 1 || rc.Messages > maxMessages) {
		d.errorf(p+".messages", "must be between 1 and %d, got %d", maxMessages, rc.Messages)
	}
	c.Messages = rc.Messages
	if d.set(p + ".duration") {
		return
	}
	c.Duration = DefaultMaxLimit
	if !last {
		d.errorf(p+".messages", "a rate: max cell that counts messages needs a duration here, as its time limit: k6 fixes every cell's start before the run, so the next cell starts when this one's limit (default %v) ends, however soon its messages are sent", DefaultMaxLimit)
	}
}
