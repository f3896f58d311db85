package jsmodule

import (
	"github.com/mqbench/xk6-mqbench/internal/catalog"
	"go.k6.io/k6/v2/metrics"
)

// mqMetrics holds the registered k6 metrics by name (see internal/catalog).
type mqMetrics struct {
	publishLatency, e2eLatency, e2eIntended, scheduleLag  *metrics.Metric
	sent, acked, received, publishErrors                  *metrics.Metric
	lost, duplicated, reordered, bytesSent, bytesReceived *metrics.Metric
	unconfirmed, held                                     *metrics.Metric
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
		} else if m.Data() {
			vt = metrics.Data
		}
		km, err := reg.NewMetric(m.Name, typ, vt)
		if err != nil {
			return nil, err
		}
		byName[m.Name] = km
	}
	mm := &mqMetrics{
		publishLatency: byName[catalog.PublishLatency], e2eLatency: byName[catalog.E2ELatency],
		e2eIntended: byName[catalog.E2EIntendedLatency], scheduleLag: byName[catalog.ScheduleLag],
		sent: byName[catalog.MessagesSent], acked: byName[catalog.MessagesAcked],
		received: byName[catalog.MessagesReceived], publishErrors: byName[catalog.PublishErrors],
		lost: byName[catalog.MessagesLost], unconfirmed: byName[catalog.MessagesUnconfirmed], held: byName[catalog.MessagesHeld], duplicated: byName[catalog.MessagesDuplicated],
		reordered: byName[catalog.MessagesReordered], bytesSent: byName[catalog.BytesSent],
		bytesReceived: byName[catalog.BytesReceived], backlog: byName[catalog.Backlog],
		thresholdFailed: byName[catalog.Verdict.Name], trend: map[string]*metrics.Metric{},
		brokerBacklog: byName[catalog.BrokerBacklog], brokerCPU: byName[catalog.BrokerCPU], brokerMemory: byName[catalog.BrokerMemory],
	}
	for _, m := range catalog.Metrics {
		if m.Kind == catalog.Trend {
			mm.trend[m.Name] = byName[m.Name]
		}
	}
	return mm, nil
}
