package redisdrv

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestBrokerStats: in streams mode 500 entries the run's group has not read are its lag
// (Backlog); pub/sub keeps no backlog. CPU and memory come from INFO in both modes.
func TestBrokerStats(t *testing.T) {
	url := redisURL(t)
	const n = 500
	for _, tc := range []struct {
		mode    string
		backlog int64
	}{
		{"streams", n},
		{"pubsub", driver.Unknown},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			o := &Options{Mode: tc.mode}
			o.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("stats-" + tc.mode), Options: o,
				RunID: fmt.Sprintf("stats-%s-%d", tc.mode, time.Now().UnixNano())}
			drivertest.BrokerStats(t, "redis", cfg, n, drivertest.StatsWant{Backlog: tc.backlog, CPU: true, Memory: true})
		})
	}
}
