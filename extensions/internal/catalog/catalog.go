// Package catalog lists every metric mqbench emits. The k6 module registers them from this
// list, the scenario parser checks threshold names and aggregations against it, and a test
// checks that README's metric table names each one.
package catalog

import (
	"maps"
	"strings"
)

// Kind mirrors k6's metric types.
type Kind string

// The k6 metric types mqbench uses.
const (
	Counter Kind = "counter"
	Trend   Kind = "trend"
	Rate    Kind = "rate"
	Gauge   Kind = "gauge"
)

// Metric describes one metric.
type Metric struct {
	Name string
	Kind Kind
	// Time marks trends whose values are durations: k6 keeps them in milliseconds, and
	// threshold values written with a unit ("5ms", "250us") are converted to that.
	Time bool
	Desc string
}

// Data reports whether the metric's values are bytes (k6's data value type).
func (m Metric) Data() bool {
	return m.Name == BytesSent || m.Name == BytesReceived || m.Name == BrokerMemory
}

// Metric names: each is defined here once; the k6 module, the runner, merge, the parser and the
// reports refer to these constants.
const (
	PublishLatency      = "mq_publish_latency"
	E2ELatency          = "mq_e2e_latency"
	E2EIntendedLatency  = "mq_e2e_intended_latency"
	ScheduleLag         = "mq_schedule_lag"
	MessagesSent        = "mq_messages_sent"
	MessagesAcked       = "mq_messages_acked"
	MessagesReceived    = "mq_messages_received"
	PublishErrors       = "mq_publish_errors"
	MessagesLost        = "mq_messages_lost"
	MessagesUnconfirmed = "mq_messages_unconfirmed"
	MessagesHeld        = "mq_messages_held"
	MessagesDuplicated  = "mq_messages_duplicated"
	MessagesReordered   = "mq_messages_reordered"
	BytesSent           = "mq_bytes_sent"
	BytesReceived       = "mq_bytes_received"
	Backlog             = "mq_backlog"
	BrokerBacklog       = "mq_broker_backlog"
	BrokerCPU           = "mq_broker_cpu_percent"
	BrokerMemory        = "mq_broker_memory_bytes"
	ThresholdFailed     = "mq_threshold_failed"
	DroppedIterations   = "dropped_iterations" // k6's
)

// Metrics is every mqbench metric, in the docs' order.
var Metrics = []Metric{
	{PublishLatency, Trend, true, "publish call → broker acknowledgement, per message (not emitted in fire-and-forget modes)"},
	{E2ELatency, Trend, true, "send time stamped in the payload → receipt by a consumer"},
	{E2EIntendedLatency, Trend, true, "intended send time (executor start + iteration × period) → receipt: free of coordinated omission"},
	{ScheduleLag, Trend, true, "actual − intended start of each producer iteration (generator lateness)"},
	{MessagesSent, Counter, false, "messages handed to the broker client"},
	{MessagesAcked, Counter, false, "messages the broker acknowledged (equals sent in fire-and-forget modes)"},
	{MessagesReceived, Counter, false, "messages received by consumers (duplicates included)"},
	{PublishErrors, Counter, false, "sends or acknowledgements that failed or timed out"},
	{MessagesLost, Counter, false, "acknowledged (or, fire-and-forget, taken by the client without error) but never received by the end of the cell's drain period, and not held by the broker"},
	{MessagesUnconfirmed, Counter, false, "sent, neither acknowledged nor failed, and not received by the end of the cell's drain period (the send's outcome was unknown): not judged lost"},
	{MessagesHeld, Counter, false, "not received by the end of the cell's drain period, but received after it (late: it arrived), or acknowledged and still held by the broker for the run's consumers (at most its backlog read then, less what of it arrived late): not judged lost"},
	{MessagesDuplicated, Counter, false, "received more than once"},
	{MessagesReordered, Counter, false, "received after a later message of the same producer"},
	{BytesSent, Counter, false, "payload bytes handed to the broker client"},
	{BytesReceived, Counter, false, "payload bytes received by consumers"},
	{Backlog, Gauge, false, "acknowledged but not yet received, sampled every 50 ms by the cell's consumer VU"},
	{BrokerBacklog, Gauge, false, "messages the broker holds for the run's consumers (queue depth, stream pending, Kafka group lag), sampled from the broker once a second"},
	{BrokerCPU, Gauge, false, "broker process CPU over the last second, percent of one core, sampled from the broker once a second"},
	{BrokerMemory, Gauge, false, "broker process resident memory, sampled from the broker once a second"},
}

// Verdict carries mqbench's threshold verdicts to k6 (one series per threshold, tag
// "threshold"); k6 judges it with value==0 and so owns the exit code. It is not a metric
// scenarios put thresholds on.
var Verdict = Metric{ThresholdFailed, Gauge, false, "1 while the threshold named by its `threshold` tag fails, 0 while it holds (mqbench's verdict, judged by k6 as `value==0`)"}

// BuiltinThresholdMetrics are k6's own metrics a scenario may put thresholds on.
var BuiltinThresholdMetrics = []Metric{
	{DroppedIterations, Counter, false, "k6 could not start an iteration on schedule"},
	{"iterations", Counter, false, "k6 iterations completed"},
	{"iteration_duration", Trend, true, "k6 iteration duration"},
}

// Find returns the metric named name among mqbench's and the allowed k6 built-ins.
func Find(name string) (Metric, bool) {
	for _, list := range [][]Metric{Metrics, BuiltinThresholdMetrics} {
		for _, m := range list {
			if m.Name == name {
				return m, true
			}
		}
	}
	return Metric{}, false
}

// ThresholdAggregations are the aggregations a scenario may use on m: its kind's, less
// "rate" on k6's own counters, which k6 divides by the whole test run's duration where every
// other threshold is judged per cell (mqbench's counters' rate is per cell).
func ThresholdAggregations(m Metric) []string {
	all := Aggregations(m.Kind)
	if m.Kind != Counter || !Builtin(m.Name) {
		return all
	}
	var out []string
	for _, a := range all {
		if a != "rate" {
			out = append(out, a)
		}
	}
	return out
}

// Builtin reports whether name is one of k6's own metrics (BuiltinThresholdMetrics).
func Builtin(name string) bool {
	for _, m := range BuiltinThresholdMetrics {
		if m.Name == name {
			return true
		}
	}
	return false
}

// Aggregations returns the threshold aggregation methods k6 accepts for a kind.
func Aggregations(k Kind) []string {
	switch k {
	case Trend:
		return []string{"avg", "min", "max", "med", "p(N)"}
	case Counter:
		return []string{"count", "rate"}
	case Rate:
		return []string{"rate"}
	default:
		return []string{"value"}
	}
}

// Trends pairs each recorded latency distribution (its kind, as results files name it) with
// its k6 trend metric, in the order reports show them.
var Trends = []struct{ Kind, Metric string }{
	{"publish", PublishLatency}, {"e2e", E2ELatency}, {"e2e_intended", E2EIntendedLatency}, {"schedule_lag", ScheduleLag},
}

// TrendKinds lists the distribution kinds of Trends.
func TrendKinds() []string {
	out := make([]string, len(Trends))
	for i, t := range Trends {
		out[i] = t.Kind
	}
	return out
}

// TrendMetric is the k6 trend of a distribution kind ("" for none).
func TrendMetric(kind string) string {
	for _, t := range Trends {
		if t.Kind == kind {
			return t.Metric
		}
	}
	return ""
}

// TrendKind is the distribution kind of a k6 trend metric.
func TrendKind(metric string) (string, bool) {
	for _, t := range Trends {
		if t.Metric == metric {
			return t.Kind, true
		}
	}
	return "", false
}

// CellTags is the tag set every sample of a cell carries (k6 tags, threshold filters): one
// definition for the live run, the merged run and the k6 options: the run's tags and the
// cell's own.
func CellTags(cell, size, rate, broker, scenario, testID string) map[string]string {
	tags := RunTags(broker, scenario, testID)
	maps.Copy(tags, CellOwnTags(cell, size, rate))
	return tags
}

// RunTags are the tags every sample of a run carries (k6's options.tags).
func RunTags(broker, scenario, testID string) map[string]string {
	return map[string]string{"broker": broker, "mq_scenario": scenario, "testid": testID}
}

// CellOwnTags are the tags that tell a run's cells apart (each cell's k6 scenarios' tags).
func CellOwnTags(cell, size, rate string) map[string]string {
	return map[string]string{"cell": cell, "size": size, "rate": rate}
}

// TestID is k6's testid tag of a run: the scenario's name and the run's id.
func TestID(scenario, runID string) string { return scenario + "-" + runID }

// StatTag names the statistic of an aggregated trend sample (stat=p99): the per-second
// samples mqbench sends k6 and the points the mqbench-influxdb output writes carry it alike.
const StatTag = "stat"

// k6 scenario names of a cell: its producers' and its consumer's. Defined here once; the
// plan makes them, verdicts and results read them back.
const (
	publishSuffix = "_publish"
	consumeSuffix = "_consume"
)

// PublishScenario is the k6 scenario of a cell's producers.
func PublishScenario(cell string) string { return cell + publishSuffix }

// ConsumeScenario is the k6 scenario of a cell's consumer VU.
func ConsumeScenario(cell string) string { return cell + consumeSuffix }

// CellOfScenario is the cell a k6 scenario name of PublishScenario or ConsumeScenario
// belongs to.
func CellOfScenario(name string) (string, bool) {
	for _, s := range []string{publishSuffix, consumeSuffix} {
		if c, ok := strings.CutSuffix(name, s); ok {
			return c, true
		}
	}
	return "", false
}
