package rabbitmgmt

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// NodeMemory is a node's mem_used: the memory the node reports to its memory alarm, which
// with RabbitMQ's default vm_memory_calculation_strategy (rss) is the process's resident set.
func (m *Client) NodeMemory(ctx context.Context, node string) (int64, error) {
	code, body, err := m.requestURL(ctx, http.MethodGet, m.base+"/api/nodes/"+url.PathEscape(node)+"?memory=false&binary=false", "")
	switch {
	case err != nil:
		return 0, err
	case code != http.StatusOK:
		return 0, fmt.Errorf("management API %s answered %d for node %s", m.base, code, node)
	}
	var n struct {
		MemUsed *int64 `json:"mem_used"`
	}
	if err := json.Unmarshal(body, &n); err != nil {
		return 0, fmt.Errorf("management API %s: %w", m.base, err)
	}
	if n.MemUsed == nil {
		// A node that is down is listed without its figures.
		return 0, fmt.Errorf("management API %s: node %s reports no mem_used (not running?)", m.base, node)
	}
	return *n.MemUsed, nil
}

// PrometheusURL is the metrics address for base (http://host:port, or a full URL with a
// path; "" for http://host:15692, rabbitmq_prometheus's default port).
func PrometheusURL(base, host string) string {
	if base == "" {
		base = "http://" + net.JoinHostPort(host, "15692")
	}
	if u, err := url.Parse(base); err == nil && (u.Path == "" || u.Path == "/") {
		return strings.TrimRight(base, "/") + "/metrics"
	}
	return base
}

// ErlangCPU reads the node's CPU time and uptime, in seconds, from the Prometheus text at
// metricsURL. rabbitmq_prometheus has no process_cpu_seconds_total; its CPU figure is the
// Erlang VM's statistics(runtime), the CPU time of the runtime system's threads (user +
// system; on Linux a little below what /proc counts for the whole beam.smp process, which
// also includes threads outside the runtime's accounting).
func ErlangCPU(ctx context.Context, client *http.Client, metricsURL string) (cpuSeconds, uptime float64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metricsURL, nil)
	if err != nil {
		return 0, 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, 0, fmt.Errorf("prometheus endpoint %s answered %d", metricsURL, resp.StatusCode)
	}
	const runtime, wall = "erlang_vm_statistics_runtime_milliseconds", "erlang_vm_statistics_wallclock_time_milliseconds"
	found := 0
	// The aggregated /metrics page is a few hundred kB: scan it line by line.
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() && found < 2 {
		line := sc.Bytes()
		name, value, ok := bytes.Cut(line, []byte(" "))
		if !ok || (string(name) != runtime && string(name) != wall) {
			continue
		}
		v, perr := strconv.ParseFloat(string(bytes.TrimSpace(value)), 64)
		if perr != nil {
			return 0, 0, fmt.Errorf("prometheus endpoint %s: %s: %w", metricsURL, name, perr)
		}
		if string(name) == runtime {
			cpuSeconds = v / 1000
		} else {
			uptime = v / 1000
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, fmt.Errorf("prometheus endpoint %s: %w", metricsURL, err)
	}
	if found < 2 {
		return 0, 0, fmt.Errorf("prometheus endpoint %s has no %s", metricsURL, runtime)
	}
	return cpuSeconds, uptime, nil
}

// Sampler reads driver.Stats for one queue: Backlog (messages_ready + messages_unacknowledged)
// and MemoryBytes (mem_used of the node hosting the queue, a quorum queue's leader) from the
// management API; CPUPercent from the Prometheus endpoint, i.e. of the node serving it (the
// same node on a single broker). The management API's counts are the broker's, refreshed every
// collect_statistics_interval (5 s by default), so Backlog moves in steps, unless Ready reads
// the ready part at the instant.
type Sampler struct {
	// Ready, when set, reads the queue's ready messages now (an AMQP 0-9-1 passive
	// queue.declare), in place of the management API's messages_ready; the unacknowledged
	// ones still come from the management API, which alone counts them.
	Ready func(ctx context.Context) (int64, error)

	mgmt    *Client
	queue   string
	mgmtSrc driver.OptionalSource
	prom    string
	promSrc driver.OptionalSource
	cpu     driver.CPUMeter
	client  *http.Client
}

// NewSampler samples queue through mgmt. mgmtExplicit says the scenario named the management
// API; promURL is the scenario's prometheus_url ("" for http://host:15692). A source the
// scenario did not name and that does not answer at first leaves its fields Unknown (see
// driver.OptionalSource).
func NewSampler(mgmt *Client, mgmtExplicit bool, promURL, host, queue string) *Sampler {
	return &Sampler{
		mgmt:    mgmt,
		queue:   queue,
		mgmtSrc: driver.OptionalSource{Explicit: mgmtExplicit},
		prom:    PrometheusURL(promURL, host),
		promSrc: driver.OptionalSource{Explicit: promURL != ""},
		client:  &http.Client{Timeout: 5 * time.Second},
	}
}

// Sample reads both sources; an error names the one that failed (never credentials: they go
// in a header, not in the URLs).
func (s *Sampler) Sample(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	var errs []string
	if !s.mgmtSrc.Off() {
		readyErr, err := s.queueStats(ctx, &st)
		if err := s.mgmtSrc.Result(err); err != nil {
			errs = append(errs, err.Error())
		}
		if readyErr != nil { // the broker's, not the management API's: it stays in use
			errs = append(errs, readyErr.Error())
		}
	}
	if !s.promSrc.Off() {
		cpu, up, err := ErlangCPU(ctx, s.client, s.prom)
		if err == nil {
			st.CPUPercent = s.cpu.Percent(time.Now(), cpu, up)
		}
		if err := s.promSrc.Result(err); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return st, fmt.Errorf("rabbitmq stats: %s", strings.Join(errs, "; "))
	}
	return st, nil
}

// queueStats reads the queue's depth and its node's memory; readyErr is Ready's failure
// (the depth is then Unknown), err the management API's.
func (s *Sampler) queueStats(ctx context.Context, st *driver.Stats) (readyErr, err error) {
	q, err := s.mgmt.Queue(ctx, s.queue)
	if err != nil {
		return nil, err
	}
	// A stream is not consumed destructively: its message count is the whole log, not what
	// waits for the run's consumers (each has its own offset, which the API does not show).
	if q.Type != "stream" && q.MessagesReady != nil && q.MessagesUnacknowledged != nil {
		ready := *q.MessagesReady
		if s.Ready != nil {
			ready, readyErr = s.Ready(ctx)
		}
		if readyErr == nil {
			st.Backlog = ready + *q.MessagesUnacknowledged
		}
	}
	node := q.Leader
	if node == "" {
		node = q.Node
	}
	if node == "" {
		return readyErr, nil
	}
	mem, err := s.mgmt.NodeMemory(ctx, node)
	if err != nil {
		return readyErr, err
	}
	st.MemoryBytes = mem
	return readyErr, nil
}
