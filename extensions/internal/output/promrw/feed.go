package promrw

import (
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// mqbench's latency distributions do not reach this output as k6 samples: k6 receives each
// second's statistics (count, p99, …), which no histogram can be rebuilt from. The k6 module
// hands each second's native buckets here instead (Observe), and the output leaves mqbench's
// trend samples alone. One output runs per process; running is it while it runs.
var running atomic.Pointer[promOutput]

// Schema is the native schema the running output counts in; false when none runs.
func Schema() (int32, bool) {
	if o := running.Load(); o != nil {
		return o.cfg.schema, true
	}
	return 0, false
}

// Observe adds one second of a time distribution (n in seconds, sumSeconds its values'
// sum) to the series of metric with tags. Without a running output it does nothing.
func Observe(metric string, tags map[string]string, n *hist.Native, sumSeconds float64, at time.Time) {
	o := running.Load()
	if o == nil || n == nil || n.Schema != o.cfg.schema {
		return
	}
	name := metricName(metric) + "_seconds"
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.seriesFor(name, tags, kindHist, at)
	s.h.addInterval(n, sumSeconds)
	s.dirty = true
}
