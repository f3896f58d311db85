package jsmodule

import (
	"github.com/mqbench/xk6-mqbench/internal/driver"
	"go.k6.io/k6/v2/metrics"
)

// pushBroker sends the broker's latest sample of the cell (runner/brokerstats.go), at most
// one a second, with the cell's tags: mq_broker_backlog, mq_broker_cpu_percent and
// mq_broker_memory_bytes, each only when the broker exposed it.
func (mi *ModuleInstance) pushBroker(st *driver.Stats) {
	if st == nil {
		return
	}
	var vals []sampleValue
	if st.Backlog >= 0 {
		vals = append(vals, sampleValue{mi.m.brokerBacklog, float64(st.Backlog)})
	}
	if st.CPUPercent >= 0 {
		vals = append(vals, sampleValue{mi.m.brokerCPU, st.CPUPercent})
	}
	if st.MemoryBytes >= 0 {
		vals = append(vals, sampleValue{mi.m.brokerMemory, float64(st.MemoryBytes)})
	}
	if len(vals) > 0 {
		metrics.PushIfNotDone(mi.vu.Context(), mi.vu.State().Samples, mi.samples(vals, nil))
	}
}
