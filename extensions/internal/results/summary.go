// Package results is the one definition of the data a run leaves in results/<scenario>/<ts>/:
// summary.json (these types), each distribution as a .hgrm percentile table, as an exact
// HdrHistogram V2 encoding (.hdr) and as a per-second interval log (.hlog), and a runner's
// shard.json. The runner fills a Summary, WriteData puts it on disk, and compare and merge
// read it back through Load, so writers and readers cannot disagree. Package report renders
// summary.txt, junit.xml and report.html from it; this package renders nothing.
package results

import (
	"encoding/json"
	"strconv"

	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/verdict"
)

// Schema is summary.json's format version. 2: thresholds evaluated by mqbench on its own
// histograms (evaluated_by), exact distributions (hdr, hlog), run-wide thresholds have cell "".
const Schema = 2

// Summary is summary.json.
type Summary struct {
	Schema      int    `json:"schema"`
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	RunID       string `json:"run_id"`
	// What made the run, so a baseline can be tied to its build: mqbench's, k6's and Go's
	// versions (internal/version), the SHA-256 of the scenario file's bytes as read, and the
	// pacing of fixed-rate sends (precise or timer: precise where the system has no kernel
	// timer runs as timer). "" in a summary written before they were recorded.
	Mqbench        string `json:"mqbench"`
	K6             string `json:"k6"`
	Go             string `json:"go"`
	ScenarioSHA256 string `json:"scenario_sha256"`
	Pacing         string `json:"pacing"`
	Broker         Broker `json:"broker"`
	// Pattern is "one-way" or "request-reply" (producers requested, consumers echoed each
	// request back; the end-to-end latency is then the round trip).
	Pattern string `json:"pattern"`
	// Samples says what k6 received: "aggregated" (per cell and second, the default) or
	// "raw" (one sample per message, opted in).
	Samples string `json:"samples"`
	Foreign uint64 `json:"foreign_messages"`
	// Complete is false when the run was stopped (signal, abort) before every cell ended.
	Complete bool `json:"complete"`
	// Error says why the run measured nothing: the broker could not be reached or refused it
	// (exit 112, 113). Absent when the run started.
	Error             string      `json:"error,omitempty"`
	FinishedAt        string      `json:"finished_at"`
	TestRunDurationMs float64     `json:"test_run_duration_ms"`
	ThresholdsOK      bool        `json:"thresholds_ok"`
	ResultsDir        string      `json:"results_dir"`
	Cells             []Cell      `json:"cells"`
	Thresholds        []Threshold `json:"thresholds"`
	// Runners lists the shards a merged (distributed) run was made of; absent otherwise.
	Runners []Runner `json:"runners,omitempty"`
	// Clock: a shared-destination run's clock offsets and latency bounds (results/clock.go).
	Clock *RunClock `json:"clock,omitempty"`
	// Outputs: how the metric outputs that report back (mqbench-prometheus) fared; absent
	// without one. A failing output never changes the verdict.
	Outputs []Output `json:"outputs,omitempty"`
}

// Output is how one metric output fared: its pushes, the failed ones (their points dropped;
// later pushes carry the totals again), and the first failure.
type Output struct {
	Name          string `json:"name"`
	URL           string `json:"url"` // without user info
	Pushes        int    `json:"pushes"`
	FailedPushes  int    `json:"failed_pushes"`
	DroppedPoints int    `json:"dropped_series_points"`
	Bytes         int64  `json:"bytes"`
	GaveUp        bool   `json:"gave_up,omitempty"` // refused again and again: stopped pushing
	Error         string `json:"error,omitempty"`
}

// Broker names the broker without credentials.
type Broker struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	AckMode string `json:"ack_mode"`
	// Server is what the server said it is when mqbench connected (product and version:
	// "RabbitMQ 3.10.8", "FerretDB v1.24.0 (MongoDB 7.0.42 protocol)"); absent
	// when the driver cannot ask (driver.Identifier).
	Server string `json:"server,omitempty"`
}

// Threshold is one threshold with its verdict and the value it tested.
type Threshold struct {
	Metric     string   `json:"metric"`     // k6 form, with the cell filter: mq_e2e_latency{cell:c1}
	Cell       string   `json:"cell"`       // "" for a threshold over several cells
	Expression string   `json:"expression"` // k6 form, time in ms: p(99)<5
	Source     string   `json:"source"`     // as the scenario wrote it: p(99) < 5ms
	OK         bool     `json:"ok"`         // false for a failed threshold and for one with no data
	Value      *float64 `json:"value"`      // what was measured (ms for time metrics); null: no data
	// Status is pass, fail or "no data" (nothing measured: not a pass); see State.
	Status string `json:"status"`
	Unit   string `json:"unit"` // "ms" for time metrics
	// EvaluatedBy: "mqbench" (its histograms, counters and ledger) or "k6" (k6's own
	// metrics such as dropped_iterations).
	EvaluatedBy string `json:"evaluated_by"`
	AbortOnFail bool   `json:"abort_on_fail,omitempty"`
	// Reason says in plain words why a failed threshold failed where its metric cannot: a
	// cell's dropped iterations name the cell, the load generator's figures and the fix
	// (generator.go). Absent otherwise.
	Reason string `json:"reason,omitempty"`
}

// A threshold's status (Threshold.Status): verdict's, so the judge and the files agree.
const (
	StatusPass   = verdict.StatusPass
	StatusFail   = verdict.StatusFail
	StatusNoData = verdict.StatusNoData
)

// State is the threshold's status: Status when set, else (a summary written without it)
// pass when ok, no data when mqbench failed it with no value (it judges no data so), fail
// otherwise.
func (t Threshold) State() string {
	switch {
	case t.Status != "":
		return t.Status
	case t.OK:
		return StatusPass
	case t.Value == nil && t.EvaluatedBy == "mqbench":
		return StatusNoData
	}
	return StatusFail
}

// MarshalJSON writes the threshold with its status always said, whoever filled it.
func (t Threshold) MarshalJSON() ([]byte, error) {
	type plain Threshold // without this method
	p := plain(t)
	p.Status = t.State()
	return json.Marshal(p)
}

var _ json.Marshaler = Threshold{}

// Cell is one matrix cell. Counts exclude the warm-up except the *_warmup fields.
type Cell struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // complete | interrupted | not started
	Size      int    `json:"size_bytes"`
	SizeLabel string `json:"size"`
	// Header is "full" (36 bytes) or "compact" (12 bytes, for payloads under 36 B: no run
	// id, no intended time, send time in µs).
	Header string `json:"header"`
	Rate   int    `json:"rate"` // messages per second; 0 for rate: max; a profile's peak
	// StartRate and Stages: a rate profile's (the rate ramps from start_rate through each
	// stage's target; rate is the peak); none for a constant rate.
	StartRate int     `json:"start_rate,omitempty"`
	Stages    []Stage `json:"stages,omitempty"`
	// Replay: the recording a replay cell sent (its rate is then the mean).
	Replay *ReplayInfo `json:"replay,omitempty"`
	// Sizes: a size mix's classes (size is then "mix", size_bytes the largest); none for one
	// size.
	Sizes []SizeClass `json:"sizes,omitempty"`
	// Partitions: what each partition of the destination took while the cell ran (warm-up and
	// drain included), where the broker tells it (Kafka); none elsewhere.
	Partitions []PartitionCount `json:"partitions,omitempty"`
	// Destinations: what each destination's consumers received of the cell's measured
	// messages, in a run spread over several (workload.destinations); none for one.
	Destinations []DestinationCount `json:"destinations,omitempty"`
	// Load is "open" (a fixed rate on an arrival-rate schedule: open-model latency) or
	// "closed" (rate: max: each producer sends as fast as acknowledgements return, at most
	// Inflight unacknowledged; its latency leaves out the queueing a fixed rate would show).
	Load     string `json:"load"`
	Inflight int    `json:"inflight,omitempty"`
	// BacklogDrain: a build-and-drain cell's figures (backlogdrain.go); nil for others.
	BacklogDrain *BacklogDrain `json:"backlog_drain,omitempty"`
	Batch        int           `json:"batch"`
	Producers    int           `json:"producers"`
	Consumers    int           `json:"consumers"`
	WarmupS      float64       `json:"warmup_s"`
	DurationS    float64       `json:"duration_s"`
	DrainS       float64       `json:"drain_s"`

	Sent          uint64 `json:"sent"`
	Acked         uint64 `json:"acked"`
	PublishErrors uint64 `json:"publish_errors"`
	// PublishFirstError is the first of them, as the client reported it (credentials removed).
	PublishFirstError string `json:"publish_first_error,omitempty"`
	Received          uint64 `json:"received"`
	BytesSent         uint64 `json:"bytes_sent"`
	BytesReceived     uint64 `json:"bytes_received"`
	SentWarmup        uint64 `json:"sent_warmup"`
	ReceivedWarmup    uint64 `json:"received_warmup"`
	K6Skipped         uint64 `json:"k6_samples_skipped"`
	BacklogMax        int64  `json:"backlog_max"`

	SenderRate   float64 `json:"sender_rate"`
	AckRate      float64 `json:"ack_rate"`
	ReceiverRate float64 `json:"receiver_rate"`
	// E2ERate is received messages over the first measured send → last receipt: what went
	// through the broker end to end, the figure a closed-loop run is about.
	E2ERate           float64 `json:"e2e_rate"`
	SenderBytesRate   float64 `json:"sender_bytes_per_s"`
	ReceiverBytesRate float64 `json:"receiver_bytes_per_s"`

	// GeneratorCPUS is the k6 process's CPU time from the first measured send to the end of
	// the drain (includes an embedded broker when url is embedded).
	GeneratorCPUS   float64 `json:"generator_cpu_s"`
	CPUPerMessageUS float64 `json:"cpu_per_message_us"`
	// HostStealPct is the share of the machine's CPU time (all CPUs) that the hypervisor gave
	// to other guests from the cell's start to its last second (Linux's steal; 0 on a machine
	// of its own, absent where /proc/stat cannot be read). HostSteal lists every second in
	// which it stole any, on the interval log's clock, so a reader can tell the host's noise
	// from the system's (the regression gate leaves such seconds out).
	HostStealPct *float64      `json:"host_steal_pct,omitempty"`
	HostSteal    []StealSecond `json:"host_steal,omitempty"`

	Ledger    ledger.Tally `json:"ledger"`
	Finalized bool         `json:"ledger_final"`

	PublishLatency     hist.Stats `json:"publish_latency_us"`
	E2ELatency         hist.Stats `json:"e2e_latency_us"`
	E2EIntendedLatency hist.Stats `json:"e2e_intended_latency_us"`
	ScheduleLag        hist.Stats `json:"schedule_lag_us"`

	// Timeline: messages sent and received per TimelineStepS seconds since the cell's start
	// (warm-up and drain included), for throughput-over-time charts.
	TimelineStepS float64         `json:"timeline_step_s"`
	Timeline      []TimelinePoint `json:"timeline"`

	DroppedIterations int64 `json:"dropped_iterations"`
	// Faults: the nodes the scenario's faults killed and started in this cell, in order.
	Faults []Fault `json:"faults,omitempty"`
	// StartedAt / EndedAt: the cell's first send and the end of its drain (UTC, RFC 3339).
	StartedAt  string      `json:"started_at,omitempty"`
	EndedAt    string      `json:"ended_at,omitempty"`
	Thresholds []Threshold `json:"thresholds"`
	// Files of each recorded distribution, by kind (publish, e2e, e2e_intended,
	// schedule_lag), relative to the run's folder: the .hgrm percentile table, the exact
	// HdrHistogram (V2 compressed, base64, as Java's HistogramLogReader reads it) and the
	// interval log of per-second histograms.
	Hgrm map[string]string `json:"hgrm"`
	Hdr  map[string]string `json:"hdr"`
	Hlog map[string]string `json:"hlog"`
	// P95ByMinute is, by kind, the p95 of each minute of the interval log (minutes.go).
	P95ByMinute map[string][]MinuteStat `json:"p95_by_minute_us,omitempty"`
	// Broker is the broker's own view of the cell (brokerstats.go); nil when not readable.
	Broker *BrokerSide `json:"broker_side,omitempty"`
}

// Fault is one kill or start of a cluster node by the scenario's faults.
type Fault struct {
	Action string  `json:"action"` // kill | start
	Asked  string  `json:"asked"`  // the schedule's node: leader, follower or a name
	Node   string  `json:"node"`   // the node it was, as the broker names it ("" if unresolved)
	T      float64 `json:"t"`      // seconds since the cell's start, the timeline's axis
	At     string  `json:"at"`     // UTC, RFC 3339
	TookS  float64 `json:"took_s"` // how long the command ran
	// Command is what ran; Error why it (or finding the node) failed, "" when it worked.
	Command string `json:"command,omitempty"`
	Error   string `json:"error,omitempty"`
}

// StealSecond is one second of a cell in which the host stole CPU time from the machine.
type StealSecond struct {
	// Start and Length in seconds since the cell started, as the interval log's lines (hlog/).
	Start  float64 `json:"start"`
	Length float64 `json:"length"`
	Pct    float64 `json:"pct"` // of the machine's CPU time (all CPUs)
}

// TimelinePoint is one slot: messages sent and received in [T, T+step) seconds after the
// cell started (warm-up included).
type TimelinePoint struct {
	T        float64 `json:"t"`
	Sent     uint64  `json:"sent"`
	Received uint64  `json:"received"`
	// End-to-end latency of one second in the slot (µs): its p50, p99 and max; absent when
	// nothing was measured then (warm-up, no consumer).
	E2EP50US float64 `json:"e2e_p50_us,omitempty"`
	E2EP99US float64 `json:"e2e_p99_us,omitempty"`
	E2EMaxUS float64 `json:"e2e_max_us,omitempty"`
}

// Kinds are the recorded distributions, in the order reports show them.
var Kinds = catalog.TrendKinds()

// Stats returns the cell's distribution summary of a latency kind.
func (c *Cell) Stats(kind string) (hist.Stats, bool) {
	switch kind {
	case "publish":
		return c.PublishLatency, true
	case "e2e":
		return c.E2ELatency, true
	case "e2e_intended":
		return c.E2EIntendedLatency, true
	case "schedule_lag":
		return c.ScheduleLag, true
	}
	return hist.Stats{}, false
}

// SetStats sets the cell's distribution summary of a latency kind (unknown kinds: nothing).
func (c *Cell) SetStats(kind string, st hist.Stats) {
	switch kind {
	case "publish":
		c.PublishLatency = st
	case "e2e":
		c.E2ELatency = st
	case "e2e_intended":
		c.E2EIntendedLatency = st
	case "schedule_lag":
		c.ScheduleLag = st
	}
}

// ThresholdsOK reports whether every threshold of the cell passed.
func (c *Cell) ThresholdsOK() bool {
	for _, t := range c.Thresholds {
		if !t.OK {
			return false
		}
	}
	return true
}

// Cell finds a cell by id.
func (s *Summary) Cell(id string) *Cell {
	for i := range s.Cells {
		if s.Cells[i].ID == id {
			return &s.Cells[i]
		}
	}
	return nil
}

// The cell's load model (Cell.Load).
const (
	LoadOpen   = "open"
	LoadClosed = "closed"
)

// Closed reports whether the cell ran rate: max (a closed loop).
func (c *Cell) Closed() bool { return c.Load == LoadClosed }

// RateLabel is the rate as the scenario wrote it: "max", "stages" or messages per second.
func (c *Cell) RateLabel() string {
	if c.Closed() {
		return "max"
	}
	if len(c.Stages) > 0 {
		return "stages"
	}
	if c.Replay != nil {
		return "replay"
	}
	return strconv.Itoa(c.Rate)
}

// RatePerSecond is the rate with its unit, as charts name a cell: "3000/s", "max/s", or
// "stages" or "replay" (a profile and a recording have no one rate).
func (c *Cell) RatePerSecond() string {
	if len(c.Stages) > 0 || c.Replay != nil {
		return c.RateLabel()
	}
	return c.RateLabel() + "/s"
}

// ClosedLoopCaveat is what console, summary and report say beside a closed-loop cell's
// latencies.
const ClosedLoopCaveat = "rate: max is a closed loop: each producer sent only when one of its in-flight slots was free, so its latencies leave out the queueing a fixed arrival rate would meet; they are not open-model latencies (run a fixed rate below the maximum for those)"

// RequestReplyNote is what console and report say about a request-reply run's latencies.
const RequestReplyNote = "request-reply: producers sent requests on schedule, consumers answered each by echoing it to the requester; end-to-end latency is the round trip, request sent -> reply received"

// PatternRequestReply is Summary.Pattern of a request-reply run.
const PatternRequestReply = "request-reply"
