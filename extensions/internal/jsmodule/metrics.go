package jsmodule

import (
	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"github.com/mqbench/xk6-mqbench/internal/runner"
	"go.k6.io/k6/v2/metrics"
)

// mqMetrics holds the registered k6 metrics by name (see internal/catalog).
type mqMetrics struct {
	publishLatency, e2eLatency, e2eIntended, scheduleLag  *metrics.Metric
	sent, acked, received, publishErrors                  *metrics.Metric
	lost, duplicated, reordered, bytesSent, bytesReceived *metrics.Metric
	backlog, thresholdFailed                              *metrics.Metric
	brokerBacklog, brokerCPU, brokerMemory                *metrics.Metric            // brokerstats.go
	trend                                                 map[string]*metrics.Metric // by name
}

// registerMetrics registers every catalogued metric (idempotent: the registry returns the
// existing metric for a name already registered with the same type).
func registerMetrics(reg *metrics.Registry) (*mqMetrics, error) {
	byName := map[string]*metrics.Metric{}
	for _, m := range append(append([]catalog.Metric{}, catalog.Metrics...), catalog.Verdict) {
		typ := map[catalog.Kind]metrics.MetricType{catalog.Counter: metrics.Counter,
			catalog.Trend: metrics.Trend, catalog.Rate: metrics.Rate, catalog.Gauge: metrics.Gauge}[m.Kind]
		vt := metrics.Default
		if m.Time {
			vt = metrics.Time
		} else if m.Name == "mq_bytes_sent" || m.Name == "mq_bytes_received" || m.Name == runner.MetricBrokerMemory {
			vt = metrics.Data
		}
		km, err := reg.NewMetric(m.Name, typ, vt)
		if err != nil {
			return nil, err
		}
		byName[m.Name] = km
	}
	mm := &mqMetrics{
		publishLatency: byName["mq_publish_latency"], e2eLatency: byName["mq_e2e_latency"],
		e2eIntended: byName["mq_e2e_intended_latency"], scheduleLag: byName["mq_schedule_lag"],
		sent: byName["mq_messages_sent"], acked: byName["mq_messages_acked"],
		received: byName["mq_messages_received"], publishErrors: byName["mq_publish_errors"],
		lost: byName["mq_messages_lost"], duplicated: byName["mq_messages_duplicated"],
		reordered: byName["mq_messages_reordered"], bytesSent: byName["mq_bytes_sent"],
		bytesReceived: byName["mq_bytes_received"], backlog: byName["mq_backlog"],
		thresholdFailed: byName[catalog.Verdict.Name], trend: map[string]*metrics.Metric{},
		brokerBacklog: byName[runner.MetricBrokerBacklog], brokerCPU: byName[runner.MetricBrokerCPU], brokerMemory: byName[runner.MetricBrokerMemory],
	}
	for _, m := range catalog.Metrics {
		if m.Kind == catalog.Trend {
			mm.trend[m.Name] = byName[m.Name]
		}
	}
	return mm, nil
}
