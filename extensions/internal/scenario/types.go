// Package scenario reads mqbench scenario files: strict YAML with every error located by
// file, line and field, collected all at once, before anything connects.
package scenario

import (
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/threshold"
)

// Scenario is one validated scenario file. Load (what to send) is kept apart from Broker
// (where to send it and how the broker is tuned).
type Scenario struct {
	File        string // path as given
	SHA256      string // hex SHA-256 of the file's bytes as read (summary.json's scenario_sha256)
	Name        string // equals the file stem
	Description string
	Broker      Broker
	Workload    Workload
	Cells       []Cell      // the matrix, expanded with workload defaults; at least one
	Thresholds  []Threshold // scenario-wide; applied to every cell
	Validity    Validity
	// Faults are node failures injected into every cell (none when Schedule is empty).
	Faults Faults
	// Samples is what k6 receives: "aggregated" (per cell and second: counts, and latency
	// count/min/mean/max/percentiles; memory independent of rate and length) or "raw" (one
	// k6 sample per message, for people who want every point; memory grows with messages).
	Samples string
	// Search, when set, makes the scenario a capacity search (search.go): nil otherwise.
	Search *Search
	// Distributed is how a distributed run uses its destination (distributed.go).
	Distributed Distributed
}

// Broker says which broker and how it is tuned.
type Broker struct {
	Type    string // registered driver name
	URL     string // "embedded" for the in-process NATS server
	Options any    // the driver's options struct (driver.Options), decoded and validated
}

// Payload describes message content.
type Payload struct {
	Content string // random | zeros | file | template
	File    string // path, when Content is file or template (resolved relative to the scenario file)
	// Template is File parsed, when Content is template (nil when it has problems).
	Template *payload.Template
	Key      string  // none | fixed | round-robin | random, or a distribution's type (zipf | hot | uniform)
	Keys     KeyDist // a distribution's key space (Key names its type), else zero
	// Compressibility: random content's share of repeated 64-byte blocks (0: none).
	Compressibility float64
	// Stamp is where mqbench's stamp travels: StampBody (the body's first bytes) or
	// StampHeader (the broker's message header; the body is then the payload alone).
	Stamp string
}

// StampRoom is how many bytes at the start of a full-size body the stamp takes: header.Size
// when it travels in the body, none when it travels in a header.
func (s *Scenario) StampRoom() int {
	if s.Workload.Payload.Stamp == StampHeader {
		return 0
	}
	return header.Size
}

// CompactStamp reports whether a message of size bytes carries the compact header (no run,
// no intended time): a body under header.Size, when the stamp travels in the body.
func (s *Scenario) CompactStamp(size int) bool {
	return size > 0 && size < header.Size && s.Workload.Payload.Stamp != StampHeader
}

// Where the stamp travels (Payload.Stamp).
const (
	StampBody   = "body"
	StampHeader = "header"
)

// Workload is the load description shared by all cells unless a cell overrides it.
type Workload struct {
	Destination string
	// Destinations is how many destinations the run spreads over (1: Destination itself;
	// N: Destination-0 … Destination-(N-1), producer i and consumer i on destination i mod N).
	Destinations int
	// Subscriptions is how many independent subscriptions (consumer groups) each receive
	// every message, each with Consumers consumers sharing its messages (fan-out).
	Subscriptions int
	// Pattern is "one-way" (producers publish, consumers receive) or "request-reply"
	// (producers are requesters, consumers are responders echoing each request; the
	// end-to-end latency is the round trip, request sent → reply received).
	Pattern   string
	Producers int // producer connections (not VUs); requesters in request-reply
	Consumers int // consumer connections (per subscription); responders in request-reply
	Payload   Payload
	Batch     int           // messages per k6 iteration
	Warmup    time.Duration // excluded from the measured distribution
	Duration  time.Duration // measured time per cell
	Drain     time.Duration // how long consumers keep receiving after producers stop
	VUs       int           // pre-allocated VUs per producer scenario; 0 = derived from rate
	MaxVUs    int           // 0 = derived
	// Pacing is how fixed-rate iterations are started on time: "precise" (a pacer wakes
	// the runtime at each due time; 10–15 µs late) or "timer" (Go's timers
	// alone, which round sub-millisecond waits up to 1 ms: up to ~1.1 ms late).
	Pacing string
	// ConsumerRate caps how many messages per second each consumer connection takes (0: no
	// cap), like PerfTest's --consumer-rate; cells inherit it (consumerrate.go).
	ConsumerRate int
}

// Cell is one point of the matrix: a size and a rate, with per-cell overrides applied.
type Cell struct {
	ID        string      // "c1", "c2", … (or the name given in the file)
	Size      int         // payload bytes, header included
	SizeLabel string      // as written ("1KB"); "mix" for a size mix
	Mix       []SizeShare // a size mix (sizemix.go): Size is then its largest
	Rate      int         // messages per second; 0 when Max; a profile's peak when Stages
	// Stages, when set, is the cell's rate profile from StartRate (stages.go); Duration is
	// their sum.
	Stages    []Stage
	StartRate int
	// Replay, when set, replays a recording (replaycell.go): Size is its largest message,
	// Rate its mean rate.
	Replay   *Replay
	Messages int // when set in the file: measured messages (fixed rate: Duration = Messages / Rate)
	// Max is `rate: max`, a closed loop: each producer sends as fast as its in-flight window
	// (Inflight unacknowledged messages) and the broker let it, until Messages were sent or
	// Duration (then a time limit) ended. Its latencies are not open-model latencies.
	Max      bool
	Inflight int // rate: max only
	// Backlog, when set, makes a build-and-drain cell: consumers take nothing from the start
	// of the measured period until Backlog acknowledged messages wait, then resume while the
	// producers go on at the cell's rate; the results give the drain rate and the publish
	// latency while building, draining and after.
	Backlog    int
	Producers  int
	Consumers  int
	Batch      int
	Warmup     time.Duration
	Duration   time.Duration
	Drain      time.Duration
	VUs        int
	MaxVUs     int
	Thresholds []Threshold // cell-only thresholds (in addition to the scenario's)

	// ConsumerRate caps each consumer connection while the cell runs (msg/s; 0: no cap).
	ConsumerRate int
}

// RateLabel is the rate as the scenario wrote it: "max", "stages" or messages per second.
func (c Cell) RateLabel() string {
	if c.Max {
		return RateMax
	}
	if len(c.Stages) > 0 {
		return RateStages
	}
	if c.Replay != nil {
		return RateReplay
	}
	return strconv.Itoa(c.Rate)
}

// RateMax is the rate of a closed-loop cell, as written and as tagged.
const RateMax = "max"

// RateStages is the rate tag of a cell with a rate profile (its rate varies; its summary
// lists the stages).
const RateStages = "stages"

// Threshold is one metric's list of k6 expressions. Expressions keep the user's text
// (Source) and the parsed expression with units converted to the metric's unit (Expr).
type Threshold struct {
	Metric      string // "mq_e2e_latency" (may carry a tag filter "{…}")
	Expressions []Expression
	Line        int
}

// Expression is one threshold condition.
type Expression struct {
	Source      string         // "p(99) < 5ms" as written
	Expr        threshold.Expr // p(99)<5 in k6's terms (time metrics in ms): Expr.K6() is k6's text
	AbortOnFail bool
	// DelayAbortEval is k6's delayAbortEval ("10s"), only with AbortOnFail; "" = none.
	DelayAbortEval string
}

// Validity controls the checks that say whether a run measured what it claims.
type Validity struct {
	// AllowDroppedIterations tolerates k6 dropping iterations (generator could not hold the rate).
	AllowDroppedIterations bool
}

// Faults say how mqbench kills and restarts the nodes of a local cluster, and when. The
// commands are argument lists (split on spaces, no shell); {n} becomes the node's number
// (the last digits of its name: n2, rabbit-2@host and broker id 2 are all node 2) and
// {node} its name.
type Faults struct {
	Kill     []string
	Start    []string
	Schedule []Fault
}

// Fault is one scheduled failure, repeated in every cell.
type Fault struct {
	// At is the time from the start of the cell's measured period (after its warm-up).
	At time.Duration
	// Node is which node: "leader" (of the destination: partition, queue or stream leader),
	// "follower" (another replica of it), or a node's name or number as the broker names it.
	Node string
	// RestartAfter starts the node again this long after the kill; 0: it stays down.
	RestartAfter time.Duration
}

// Workload patterns (Workload.Pattern).
const (
	PatternOneWay       = "one-way"
	PatternRequestReply = "request-reply"
)

// Node selections that ask the broker where the destination lives.
const (
	FaultLeader   = "leader"
	FaultFollower = "follower"
)
