// Package resultstest holds the summaries the tests of results, report and their readers
// share: a finished two-cell run, a stopped run with hostile text, a run only the load
// generator failed.
package resultstest

import (
	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func Ptr(v float64) *float64 { return &v }

// Stats is a fixed distribution summary (µs), so expected text is exact.
func Stats(count int64, min, p50, p99, max float64) hist.Stats {
	return hist.Stats{Count: count, Min: min, Mean: (p50 + p99) / 2, Max: max, P: map[string]float64{
		"p50": p50, "p90": p50 * 1.5, "p95": p50 * 1.8, "p99": p99, "p99_9": p99 * 1.2, "p99_99": max, "p99_999": max, "p99_9999": max}}
}

// Sample is a finished two-cell run: c1 passes, c2 breaks a latency threshold, k6's
// dropped_iterations threshold on c2 failed (listed run-wide only, as the bug had it), and
// one run-wide threshold passed.
func Sample() *results.Summary {
	c1 := results.Cell{ID: "c1", Status: "complete", Size: 256, SizeLabel: "256B", Header: "full", Rate: 400, Batch: 1, Producers: 1, Consumers: 1,
		WarmupS: 2, DurationS: 5, DrainS: 2, Sent: 2000, Acked: 2000, Received: 2000, BytesReceived: 512000,
		SenderRate: 400.2, AckRate: 400.2, ReceiverRate: 399.8, ReceiverBytesRate: 102348.8,
		Ledger: ledger.Tally{Issued: 2000, Unique: 2000}, Finalized: true,
		PublishLatency: Stats(2000, 40, 85.25, 240, 900), E2ELatency: Stats(2000, 60, 120, 1240, 2100),
		E2EIntendedLatency: Stats(2000, 61, 125, 1300, 2500), ScheduleLag: Stats(2000, 1, 5, 30, 80),
		TimelineStepS: 1, Timeline: []results.TimelinePoint{{T: 0, Sent: 400, Received: 398}, {T: 1, Sent: 400, Received: 401, E2EP50US: 118, E2EP99US: 1190, E2EMaxUS: 1900},
			{T: 2, Sent: 400, Received: 400, E2EP50US: 121, E2EP99US: 1250, E2EMaxUS: 2100}, {T: 3, Sent: 400, Received: 400, E2EP50US: 119, E2EP99US: 1230, E2EMaxUS: 1700},
			{T: 4, Sent: 400, Received: 400, E2EP50US: 117, E2EP99US: 1210, E2EMaxUS: 1800}}}
	c2 := c1
	c2.ID, c2.SizeLabel, c2.Size, c2.Rate = "c2", "1KB", 1024, 800
	c2.Ledger = ledger.Tally{Issued: 4000, Unique: 3999, Lost: 1, Duplicated: 2, Reordered: 3}
	c2.E2ELatency = Stats(4000, 70, 150, 2.1e6, 3.5e6)
	c2.DroppedIterations = 7
	c1.Thresholds = []results.Threshold{{Metric: "mq_e2e_latency{cell:c1}", Cell: "c1", Expression: "p(99)<5", Source: "p(99) < 5ms", OK: true, Value: Ptr(1.24), Unit: "ms", EvaluatedBy: "mqbench"}}
	c2.Thresholds = []results.Threshold{{Metric: "mq_e2e_latency{cell:c2}", Cell: "c2", Expression: "p(99)<5", Source: "p(99) < 5ms", OK: false, Value: Ptr(2100), Unit: "ms", EvaluatedBy: "mqbench"}}
	dropped := results.Threshold{Metric: "dropped_iterations{scenario:c2_publish}", Cell: "c2", Expression: "count<1", Source: "count < 1", OK: false, Value: Ptr(7), EvaluatedBy: "k6"}
	lossRatio := results.Threshold{Metric: "mq_loss_ratio", Expression: "rate<0.01", Source: "rate < 1%", OK: true, Value: Ptr(0.00025), EvaluatedBy: "mqbench"}
	// Status as the run writes it (summary.json always says it), so a summary reads back equal.
	c1.Thresholds[0].Status, c2.Thresholds[0].Status, dropped.Status, lossRatio.Status = results.StatusPass, results.StatusFail, results.StatusFail, results.StatusPass
	return &results.Summary{Schema: results.Schema, Scenario: "report-embedded", RunID: "0a1b2c3d", Samples: "aggregated",
		Broker: results.Broker{Type: "nats", URL: "embedded", AckMode: "async"}, Complete: true, ThresholdsOK: false,
		FinishedAt: "2026-01-02T03:04:05.678Z", TestRunDurationMs: 11234, ResultsDir: "results/report-embedded/20260102T030405Z",
		Cells:      []results.Cell{c1, c2},
		Thresholds: []results.Threshold{c1.Thresholds[0], c2.Thresholds[0], dropped, lossRatio}}
}

// Edge is what a real run rarely shows: stopped early, a cell that never started (no
// latency, no timeline), hostile text (the case the JavaScript report was tested on).
func Edge() *results.Summary {
	empty := hist.Stats{P: map[string]float64{}}
	h := hist.Stats{Count: 3, Min: 100, Mean: 200, Max: 900, P: map[string]float64{"p50": 150, "p90": 400, "p99": 900}}
	return &results.Summary{Schema: results.Schema, Scenario: "edge", RunID: "r1", Description: "evil <script>alert(1)</script> & \"q\" \x1b[31mred\r",
		Broker: results.Broker{Type: "nats", URL: "embedded", AckMode: "none"}, Complete: false, ThresholdsOK: false,
		FinishedAt: "2026-01-01T00:00:00.000Z", TestRunDurationMs: 1000,
		Cells: []results.Cell{
			{ID: "c1", Status: "interrupted", SizeLabel: "1KB", Rate: 10, Batch: 1, Producers: 1, Consumers: 1, DurationS: 1, DrainS: 1,
				Sent: 3, Received: 3, Ledger: ledger.Tally{Issued: 3, Lost: 1},
				PublishLatency: empty, E2ELatency: h, E2EIntendedLatency: h, ScheduleLag: h,
				Timeline: []results.TimelinePoint{{T: 0, Sent: 3, Received: 2}}, TimelineStepS: 1,
				Thresholds: []results.Threshold{{Metric: "mq_e2e_latency{cell:c1}", Cell: "c1", Expression: "p(99)<0.5", Source: "p(99) < 500us", OK: false, Value: Ptr(0.9), Unit: "ms"}}},
			{ID: "c2", Status: "not started", SizeLabel: "1MB", Rate: 5, Batch: 1, Producers: 1, Consumers: 1, DurationS: 1, DrainS: 1,
				PublishLatency: empty, E2ELatency: empty, E2EIntendedLatency: empty, ScheduleLag: empty,
				Thresholds: []results.Threshold{{Metric: "mq_messages_lost{cell:c2}", Cell: "c2", Expression: "count==0", Source: "count == 0", OK: false}}},
		},
		Thresholds: []results.Threshold{{Metric: "iterations", Expression: "count>0", Source: "count > 0 <&>", OK: true, Value: Ptr(3)}},
	}
}
