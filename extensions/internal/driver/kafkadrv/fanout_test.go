package kafkadrv

import (
	"fmt"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

func TestFanOut(t *testing.T) {
	url := kafkaURL(t)
	for _, tc := range []struct {
		name string
		opts *Options
	}{
		{name: "auto-commit", opts: &Options{Topic: TopicOptions{Partitions: 4}}},
		{name: "manual-sync-named-group", opts: &Options{Topic: TopicOptions{Partitions: 2}, Consumer: ConsumerOptions{Group: fmt.Sprintf("mqbench-test-fanout-%d", time.Now().UnixNano()), Commit: "manual-sync"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.Defaults()
			cfg := driver.Config{URL: url, Destination: unique("fanout-" + tc.name), Options: tc.opts, RunID: fmt.Sprintf("run-fanout-%s-%d", tc.name, time.Now().UnixNano())}
			drivertest.RunFanOut(t, "kafka", cfg)
		})
	}
}

func TestGroupOf(t *testing.T) {
	d := &kafkaDriver{group: "g"}
	for sub, want := range []string{"g", "g-s1", "g-s2"} {
		if got := d.groupOf(sub); got != want {
			t.Errorf("groupOf(%d) = %q, want %q", sub, got, want)
		}
	}
}
