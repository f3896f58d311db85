package pulsardrv

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*pulsarDriver)(nil)

// BrokerStats reads the topic's stats (admin REST API): Backlog is the msgBacklog of the
// run's subscriptions (entries not yet acknowledged, delivered or not), summed; Unknown on a
// non-persistent topic, which keeps none. Pulsar counts entries: a batch is one, so with
// batching the backlog in messages is up to batch_max_messages times larger. CPU and resident memory come from the broker's
// Prometheus metrics (/metrics on the same port): the JVM's process_cpu_seconds_total and
// process_resident_memory_bytes (the standalone JVM holds the bookie too).
func (d *pulsarDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	var errs []error
	if d.topic.persistent {
		s, err := d.admin.stats(ctx, d.topic, d.opts.Partitions > 0)
		if err == nil {
			st.Backlog = 0
			for i := range d.nSubs {
				st.Backlog += s.Subscriptions[d.subscription(i)].MsgBacklog
			}
		}
		errs = append(errs, err)
	}
	cpu, rss, start, err := d.processMetrics(ctx)
	if err == nil {
		now := time.Now()
		d.statsMu.Lock()
		st.CPUPercent = d.cpu.Percent(now, cpu, now.Sub(start).Seconds())
		d.statsMu.Unlock()
		st.MemoryBytes = rss
	}
	errs = append(errs, err)
	return st, errors.Join(errs...)
}

// processMetrics reads the broker JVM's cumulative CPU seconds, resident memory and start
// time from GET /metrics/ (~200 KB of text; the three lines are near its top).
func (d *pulsarDriver) processMetrics(ctx context.Context) (cpu float64, rss int64, start time.Time, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.admin.base+"/metrics/", nil)
	if err != nil {
		return 0, 0, start, fmt.Errorf("pulsar: %w", err)
	}
	resp, err := d.admin.http.Do(req)
	if err != nil {
		return 0, 0, start, fmt.Errorf("pulsar: GET /metrics/: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, start, fmt.Errorf("pulsar: GET /metrics/: %s", resp.Status)
	}
	found := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && found < 3 {
		line := sc.Text()
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			name, rest, _ = strings.Cut(line, " ")
		} else if _, rest, ok = strings.Cut(rest, "} "); !ok {
			continue
		}
		var v float64
		switch name {
		case "process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds":
			v, err = strconv.ParseFloat(strings.Fields(rest + " x")[0], 64)
			if err != nil {
				return 0, 0, start, fmt.Errorf("pulsar: /metrics/ %s: %w", name, err)
			}
			found++
		default:
			continue
		}
		switch name {
		case "process_cpu_seconds_total":
			cpu = v
		case "process_resident_memory_bytes":
			rss = int64(v)
		default:
			start = time.Unix(0, int64(v*1e9))
		}
	}
	if err := sc.Err(); err != nil {
		return 0, 0, start, fmt.Errorf("pulsar: GET /metrics/: %w", err)
	}
	if found < 3 {
		return 0, 0, start, errors.New("pulsar: /metrics/ lacks process_cpu_seconds_total, process_resident_memory_bytes or process_start_time_seconds")
	}
	return cpu, rss, start, nil
}
