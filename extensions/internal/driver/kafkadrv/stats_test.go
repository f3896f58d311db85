package kafkadrv

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestBrokerStats: Setup commits the group's start offsets (the end of every partition, start
// latest), so 500 records produced with no consumer running are exactly the group's lag,
// summed over the topic's 3 partitions. CPU and memory are JMX-only: Unknown.
func TestBrokerStats(t *testing.T) {
	url := kafkaURL(t)
	o := &Options{Topic: TopicOptions{Partitions: 3, ReplicationFactor: 1}}
	o.Defaults()
	cfg := driver.Config{URL: url, Destination: unique("stats"), Options: o,
		RunID: fmt.Sprintf("stats-%d", time.Now().UnixNano())}
	drivertest.BrokerStats(t, "kafka", cfg, 500, drivertest.StatsWant{Backlog: 500})
}
