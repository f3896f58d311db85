package runner

import (
	"context"
	"errors"
	"testing"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Several destinations: the backlogs add up, CPU and memory are the first destination's (the
// same broker process), an unknown backlog anywhere makes the sum unknown, errors are kept
// with what was read; a driver that cannot read the broker means no sampler at all.
func TestDestinationStats(t *testing.T) {
	st := func(backlog int64, cpu float64, mem int64) driver.Stats {
		return driver.Stats{Backlog: backlog, CPUPercent: cpu, MemoryBytes: mem}
	}
	one := func(s driver.Stats, err error) driver.Driver {
		return &fakeStats{samples: []fakeSample{{s, err}}}
	}
	boom := errors.New("boom")
	cases := []struct {
		name    string
		drvs    []driver.Driver
		noStats bool
		want    driver.Stats
		wantErr bool
	}{
		{"one destination: its own", []driver.Driver{one(st(5, 10, 100), nil)}, false, st(5, 10, 100), false},
		{"backlogs add up, CPU and memory from the first",
			[]driver.Driver{one(st(5, 10, 100), nil), one(st(7, 99, 999), nil), one(st(1, 1, 1), nil)}, false, st(13, 10, 100), false},
		{"an unknown backlog makes the sum unknown",
			[]driver.Driver{one(st(5, 10, 100), nil), one(driver.UnknownStats(), boom)}, false, st(driver.Unknown, 10, 100), true},
		{"a driver that cannot read the broker: no sampler",
			[]driver.Driver{one(st(5, 10, 100), nil), plainDriver{}}, true, driver.Stats{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bs, ok := brokerStatsOf(c.drvs)
			if ok == c.noStats {
				t.Fatalf("sampler: %v, want %v", ok, !c.noStats)
			}
			if !ok {
				return
			}
			got, err := bs.BrokerStats(context.Background())
			if got != c.want || (err != nil) != c.wantErr {
				t.Errorf("got %+v, %v; want %+v, error %v", got, err, c.want, c.wantErr)
			}
		})
	}
}
