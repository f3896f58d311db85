// Package catalog lists every metric mqbench emits. The k6 module registers them from this
// list, the scenario parser checks threshold names and aggregations against it, and a test
// checks that README's metric table names each one.
package catalog

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

// Metrics is every mqbench metric, in README order.
var Metrics = []Metric{
	{"mq_publish_latency", Trend, true, "publish call → broker acknowledgement, per message (not emitted in fire-and-forget modes)"},
	{"mq_e2e_latency", Trend, true, "send time stamped in the payload → receipt by a consumer"},
	{"mq_e2e_intended_latency", Trend, true, "intended send time (executor start + iteration × period) → receipt: free of coordinated omission"},
	{"mq_schedule_lag", Trend, true, "actual − intended start of each producer iteration (generator lateness)"},
	{"mq_messages_sent", Counter, false, "messages handed to the broker client"},
	{"mq_messages_acked", Counter, false, "messages the broker acknowledged (equals sent in fire-and-forget modes)"},
	{"mq_messages_received", Counter, false, "messages received by consumers (duplicates included)"},
	{"mq_publish_errors", Counter, false, "sends or acknowledgements that failed or timed out"},
	{"mq_messages_lost", Counter, false, "acknowledged but never received by the end of the cell's drain period"},
	{"mq_messages_duplicated", Counter, false, "received more than once"},
	{"mq_messages_reordered", Counter, false, "received after a later message of the same producer"},
	{"mq_bytes_sent", Counter, false, "payload bytes handed to the broker client"},
	{"mq_bytes_received", Counter, false, "payload bytes received by consumers"},
	{"mq_backlog", Gauge, false, "acknowledged but not yet received, sampled every 50 ms by the cell's consumer VU"},
	{"mq_broker_backlog", Gauge, false, "messages the broker holds for the run's consumers (queue depth, stream pending, Kafka group lag), sampled from the broker once a second"},
	{"mq_broker_cpu_percent", Gauge, false, "broker process CPU over the last second, percent of one core, sampled from the broker once a second"},
	{"mq_broker_memory_bytes", Gauge, false, "broker process resident memory, sampled from the broker once a second"},
}

// Verdict carries mqbench's threshold verdicts to k6 (one series per threshold, tag
// "threshold"); k6 judges it with value==0 and so owns the exit code. It is not a metric
// scenarios put thresholds on.
var Verdict = Metric{"mq_threshold_failed", Gauge, false, "1 while the threshold named by its `threshold` tag fails, 0 while it holds (mqbench's verdict, judged by k6 as `value==0`)"}

// BuiltinThresholdMetrics are k6's own metrics a scenario may put thresholds on.
var BuiltinThresholdMetrics = []Metric{
	{"dropped_iterations", Counter, false, "k6 could not start an iteration on schedule"},
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
