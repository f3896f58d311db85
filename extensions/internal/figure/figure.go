// Package figure names the figures of a run's cell that scripts read from summary.json
// (`k6 x mqbench figure`), so the field paths are spelled in Go once, not in every script.
package figure

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

func count(v uint64) string               { return strconv.FormatUint(v, 10) }
func num(v float64) string                { return strconv.FormatFloat(v, 'f', -1, 64) }
func pct(s hist.Stats, key string) string { return num(s.P[key]) }

// Fields are the figures by name: counts as integers, rates in msg/s and latencies in µs as
// decimals.
var Fields = map[string]func(c *results.Cell) string{
	"sent":                func(c *results.Cell) string { return count(c.Sent) },
	"acked":               func(c *results.Cell) string { return count(c.Acked) },
	"received":            func(c *results.Cell) string { return count(c.Received) },
	"lost":                func(c *results.Cell) string { return count(c.Ledger.Lost) },
	"publish_errors":      func(c *results.Cell) string { return count(c.PublishErrors) },
	"dropped_iterations":  func(c *results.Cell) string { return strconv.FormatInt(c.DroppedIterations, 10) },
	"sender_rate":         func(c *results.Cell) string { return num(c.SenderRate) },
	"ack_rate":            func(c *results.Cell) string { return num(c.AckRate) },
	"receiver_rate":       func(c *results.Cell) string { return num(c.ReceiverRate) },
	"e2e_rate":            func(c *results.Cell) string { return num(c.E2ERate) },
	"cpu_per_message_us":  func(c *results.Cell) string { return num(c.CPUPerMessageUS) },
	"publish_mean_us":     func(c *results.Cell) string { return num(c.PublishLatency.Mean) },
	"publish_p50_us":      func(c *results.Cell) string { return pct(c.PublishLatency, "p50") },
	"publish_p95_us":      func(c *results.Cell) string { return pct(c.PublishLatency, "p95") },
	"publish_p99_us":      func(c *results.Cell) string { return pct(c.PublishLatency, "p99") },
	"e2e_p50_us":          func(c *results.Cell) string { return pct(c.E2ELatency, "p50") },
	"e2e_p95_us":          func(c *results.Cell) string { return pct(c.E2ELatency, "p95") },
	"e2e_p99_us":          func(c *results.Cell) string { return pct(c.E2ELatency, "p99") },
	"e2e_intended_p50_us": func(c *results.Cell) string { return pct(c.E2EIntendedLatency, "p50") },
	"schedule_lag_p50_us": func(c *results.Cell) string { return pct(c.ScheduleLag, "p50") },
	"schedule_lag_p99_us": func(c *results.Cell) string { return pct(c.ScheduleLag, "p99") },
	"schedule_lag_max_us": func(c *results.Cell) string { return num(c.ScheduleLag.Max) },
}

// Names lists the figures, sorted.
func Names() string {
	var ns []string
	for n := range Fields {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

// runnerRates is each runner's sender rate in cell id, rounded, space-separated.
func runnerRates(s *results.Summary, id string) string {
	var rs []string
	for _, r := range s.Runners {
		for _, c := range r.Cells {
			if c.ID == id {
				rs = append(rs, fmt.Sprintf("%.0f", c.SenderRate))
			}
		}
	}
	return strings.Join(rs, " ")
}

// Read reads a summary.json (a run's, or one joined from several) for its figures.
func Read(file string) (*results.Summary, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var s results.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	return &s, nil
}

// Of is the figures named of cell id of s (the first cell when id is empty), space-separated;
// three are the run's: "complete" (1 when every cell ran to its end, else 0), "mqbench" (the
// version that wrote it) and "runner_sender_rates" (a merged run's: each runner's sender
// rate in the cell, msg/s without decimals, space-separated; last, as it is several words).
func Of(s *results.Summary, id string, names []string) (string, error) {
	var c *results.Cell
	for i := range s.Cells {
		if id == "" || s.Cells[i].ID == id {
			c = &s.Cells[i]
			break
		}
	}
	if c == nil {
		return "", fmt.Errorf("no cell %q in %s's summary", id, s.Scenario)
	}
	out := make([]string, len(names))
	for i, n := range names {
		switch n {
		case "complete":
			out[i] = map[bool]string{true: "1", false: "0"}[s.Complete]
			continue
		case "mqbench":
			out[i] = s.Mqbench
			continue
		case "runner_sender_rates":
			out[i] = runnerRates(s, c.ID)
			continue
		}
		f, ok := Fields[n]
		if !ok {
			return "", fmt.Errorf("figure %q: give complete, mqbench, runner_sender_rates or one of %s", n, Names())
		}
		out[i] = f(c)
	}
	return strings.Join(out, " "), nil
}
