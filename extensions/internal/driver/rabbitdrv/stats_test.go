package rabbitdrv

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestBrokerStats: 500 confirmed messages that nobody consumes are the queue's depth in the
// management API; mem_used and the Erlang VM's CPU (scripts/brokers/rabbitmq.sh enables the
// management and prometheus plugins) are known. A stream's depth is not a backlog: Unknown.
func TestBrokerStats(t *testing.T) {
	url := rabbitURL(t)
	const n = 500
	for _, tc := range []struct {
		queueType string
		backlog   int64
	}{
		{"classic", n},
		{"quorum", n},
		{"stream", driver.Unknown},
	} {
		t.Run(tc.queueType, func(t *testing.T) {
			t.Parallel()
			o := withEndpoints(&Options{QueueType: tc.queueType})
			o.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("stats-" + tc.queueType), Options: o,
				RunID: fmt.Sprintf("stats-%s-%d", tc.queueType, time.Now().UnixNano())}
			drivertest.BrokerStats(t, "rabbitmq", cfg, n, drivertest.StatsWant{Backlog: tc.backlog, CPU: true, Memory: true})
		})
	}
}
