package report

// Column is a column of a summary.txt / console table: its heading and what it shows. The
// tables are printed from these lists and docs/console.md is generated from them (docgen).
type Column struct{ Head, Meaning string }

// CellColumns head the first table: one row per cell.
var CellColumns = []Column{
	{"cell", "the cell's id (matrix order) or name"},
	{"status", "complete; interrupted (the run stopped during the cell); not started"},
	{"size", "payload size"},
	{"rate", "the arrival rate asked for, msg/s, or max (closed loop)"},
	{"batch", "messages per k6 iteration"},
	{"sent/s", "messages handed to the broker client per second of the measured period"},
	{"acked/s", "messages the broker acknowledged per second (equals sent/s in fire-and-forget modes)"},
	{"recv/s", "messages received per second by the consumers (duplicates included)"},
	{"e2e/s", "end-to-end throughput: messages sent in the measured period and received, per second from the first send to the last receipt"},
	{"MB/s in", "payload megabytes (MiB) received per second"},
	{"sent", "messages sent after the warm-up"},
	{"recv", "messages received after the warm-up"},
	{"lost", "acknowledged (or handed over, fire-and-forget) but not received when the drain ended, and not held by the broker"},
	{"unconf", "sent, neither acknowledged nor failed, and not received when the drain ended (the send's outcome was unknown): not lost"},
	{"held", "not received when the drain ended, but received after it (late), or acknowledged and still held by the broker for the run's consumers then: not lost"},
	{"dup", "received more than once"},
	{"reord", "received on one consumer connection after a later message of the same producer"},
	{"errors", "sends or acknowledgements that failed or timed out"},
	{"dropped", "iterations k6 could not start on schedule (the generator fell behind: the cell did not measure its rate)"},
}

// LatencyColumns head the latency tables (one per kind: end-to-end, from the intended send
// time, publish, schedule lag); a value marked * is one the sample count cannot resolve.
var LatencyColumns = []Column{
	{"cell", "the cell"},
	{"count", "messages measured (after the warm-up)"},
	{"p50 … p99.9999", "percentiles from the cell's HdrHistogram (3 significant digits); * marks one with fewer samples than it needs (p99: 100, p99.99: 10,000), whose value is the maximum of too few"},
	{"max", "the largest value, exact"},
}

// BrokerColumns head the broker-side table (drivers that read the broker's own figures).
var BrokerColumns = []Column{
	{"cell", "the cell"},
	{"samples", "how often the broker was asked (about once a second)"},
	{"errors", "samples that failed"},
	{"backlog max", "the most messages the broker held for the run's consumers (queue depth, pending, group lag); - when it does not say"},
	{"mqbench backlog max", "the most messages acknowledged and not yet received, by mqbench's own count"},
	{"cpu % max", "the broker process's CPU over a second, percent of one core"},
	{"memory max", "the broker process's resident memory"},
}

// heads are the headings of cols.
func heads(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Head
	}
	return out
}
