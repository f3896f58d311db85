package redisdrv

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*redisDriver)(nil)

// BrokerStats reads INFO on the admin connection: CPU from used_cpu_sys + used_cpu_user (the
// server process's cumulative CPU seconds, main and I/O threads) over the time since the
// previous sample, the first one averaged over uptime_in_seconds; memory from
// used_memory_rss. In streams mode Backlog is the run's consumer group's pending entries
// (delivered, not acknowledged) plus its lag (entries not yet delivered), from XINFO GROUPS;
// lag needs Redis 7 and is unknown after entries inside the group's range were deleted
// (XDEL), and Backlog is then Unknown. Pub/sub keeps nothing for subscribers: Unknown.
func (d *redisDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	// INFO without a section: the default sections (server, memory, cpu among them), which
	// every Redis version accepts (several sections in one call need Redis 7).
	info, err := d.admin.Info(ctx).Result()
	if err != nil {
		return st, fmt.Errorf("redis: INFO at %s: %w", d.addr, err)
	}
	f := infoFields(info)
	sys, okSys := parseFloat(f["used_cpu_sys"])
	user, okUser := parseFloat(f["used_cpu_user"])
	if okSys && okUser {
		up, _ := parseFloat(f["uptime_in_seconds"])
		st.CPUPercent = d.cpu.Percent(time.Now(), sys+user, up)
	}
	if rss, err := strconv.ParseInt(f["used_memory_rss"], 10, 64); err == nil {
		st.MemoryBytes = rss
	}
	if d.opts.Mode != "streams" {
		return st, nil
	}
	groups, err := d.admin.XInfoGroups(ctx, d.cfg.Destination).Result()
	if err != nil {
		return st, fmt.Errorf("redis: XINFO GROUPS %s at %s: %w", d.cfg.Destination, d.addr, err)
	}
	for _, g := range groups {
		if g.Name == d.group && g.Lag >= 0 {
			st.Backlog = g.Pending + g.Lag
		}
	}
	return st, nil
}

// infoFields splits INFO's "name:value" lines (section headers and blank lines skipped).
func infoFields(info string) map[string]string {
	m := make(map[string]string, 64)
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		if k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), ":"); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m
}

func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil
}
