package search

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Schema is search.json's format version.
const Schema = 1

// Result is search.json: what a capacity search tried and found, per cell.
type Result struct {
	Schema      int    `json:"schema"`
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	File        string `json:"file"` // the scenario file as given
	Broker      struct {
		Type string `json:"type"`
		URL  string `json:"url"` // without credentials
	} `json:"broker"`
	Search     Params `json:"search"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	// Complete is false when a step stopped the search (an invalid scenario, an unreachable
	// or refusing broker, a signal): the cells and steps then hold what was measured.
	Complete bool `json:"complete"`
	// ExitCode is the search's: 0 every cell's confirming run held, 99 one did not (or no
	// rate held), else the code of the step that stopped the search.
	ExitCode int    `json:"exit_code"`
	Stopped  string `json:"stopped,omitempty"` // why the search stopped early
	Cells    []Cell `json:"cells"`
}

// Params are the scenario's search block as run.
type Params struct {
	MaxRate       int     `json:"max_rate"`
	StepS         float64 `json:"step_s"`
	Precision     float64 `json:"precision"` // a fraction: 0.05 = 5%
	ConfirmS      float64 `json:"confirm_s"`
	BacklogGrowth float64 `json:"backlog_growth"` // a fraction of a step's messages
	WarmupS       float64 `json:"warmup_s"`       // the first cell's (each step's is its cell's)
	DrainS        float64 `json:"drain_s"`
}

// Cell is one cell's search.
type Cell struct {
	ID        string `json:"id"`
	Size      string `json:"size"`
	SizeBytes int    `json:"size_bytes"`
	StartRate int    `json:"start_rate"`
	// FoundRate is the highest rate whose step held (0: no rate held down to 1/16 of the
	// start); Held says whether the confirming run at it passed too.
	FoundRate int  `json:"found_rate"`
	Held      bool `json:"held"`
	// FirstFail is the lowest rate whose step (or confirming run) failed (0: none did).
	FirstFail int `json:"first_fail"`
	// Outcome in words: "found", "max_rate held", "no rate held", "confirm failed" (the
	// last of the confirming runs failed: a failed one sends the search below its rate, at
	// most 3 times), "stopped".
	Outcome string `json:"outcome"`
	Steps   []Step `json:"steps"` // in the order run; a held confirming run last
}

// Step is one k6 run at a fixed rate.
type Step struct {
	Rate    int      `json:"rate"`
	Confirm bool     `json:"confirm"` // the confirming run at the rate found
	OK      bool     `json:"ok"`
	Reasons []string `json:"reasons"` // what failed (empty when OK)
	// ExitCode is bin/k6's: 0 every threshold held, 99 one failed.
	ExitCode          int     `json:"exit_code"`
	DurationS         float64 `json:"duration_s"`
	Sent              uint64  `json:"sent"`
	SenderRate        float64 `json:"sender_rate"`
	ReceiverRate      float64 `json:"receiver_rate"`
	E2EP50US          float64 `json:"e2e_p50_us"`
	E2EP99US          float64 `json:"e2e_p99_us"`
	PublishP99US      float64 `json:"publish_p99_us"`
	BacklogEnd        int64   `json:"backlog_end"` // sent but not received when the producers stopped
	Lost              uint64  `json:"lost"`
	DroppedIterations int64   `json:"dropped_iterations"`
	// Dir is the step's own results folder (summary.json, report.html, …), relative to the
	// search's folder.
	Dir string `json:"dir"`
}

// Load reads a search's search.json from its folder.
func Load(dir string) (*Result, error) {
	b, err := os.ReadFile(filepath.Join(dir, "search.json"))
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s/search.json: %w", dir, err)
	}
	if r.Schema > Schema {
		return nil, fmt.Errorf("%s/search.json: schema %d, newer than this mqbench reads (%d)", dir, r.Schema, Schema)
	}
	return &r, nil
}

// Write puts search.json, search.txt and search.html in dir.
func Write(dir string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		"search.json": append(b, '\n'),
		"search.txt":  []byte(Text(r)),
		"search.html": []byte(HTML(r)),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// judge turns a step's summary into its figures and verdict: it holds when k6 exited 0 (every
// threshold, the no-drop validity rule included) and the backlog when its producers stopped
// is at most growth of what it sent.
func judge(st *Step, s *results.Summary, growth float64) {
	if len(s.Cells) == 0 {
		st.Reasons = append(st.Reasons, "no cell in the step's summary.json")
		return
	}
	c := &s.Cells[0]
	st.Sent, st.SenderRate, st.ReceiverRate = c.Sent, c.SenderRate, c.ReceiverRate
	st.E2EP50US, st.E2EP99US = c.E2ELatency.P["p50"], c.E2ELatency.P["p99"]
	st.PublishP99US = c.PublishLatency.P["p99"]
	st.DroppedIterations, st.Lost = c.DroppedIterations, c.Ledger.Lost
	st.DurationS = c.DurationS
	st.BacklogEnd = backlogEnd(c)
	seen := map[string]bool{}
	dropNamed := false
	for _, t := range append(append([]results.Threshold{}, s.Thresholds...), c.Thresholds...) {
		key := t.Metric + " " + t.Expression
		if t.OK || seen[key] {
			continue
		}
		seen[key] = true
		dropNamed = dropNamed || strings.HasPrefix(t.Metric, "dropped_iterations")
		st.Reasons = append(st.Reasons, thresholdReason(t))
	}
	if c.DroppedIterations > 0 && !dropNamed {
		st.Reasons = append(st.Reasons, fmt.Sprintf("dropped_iterations: %d (the generator could not hold the rate)", c.DroppedIterations))
	}
	if lim := growth * float64(c.Sent); float64(st.BacklogEnd) > lim {
		st.Reasons = append(st.Reasons, fmt.Sprintf("backlog: %d messages waiting when the producers stopped, more than %s of the %d sent (%.0f)",
			st.BacklogEnd, pctText(growth), c.Sent, math.Floor(lim)))
	}
	if st.ExitCode != 0 && len(st.Reasons) == 0 {
		st.Reasons = append(st.Reasons, fmt.Sprintf("k6 exited %d", st.ExitCode))
	}
	if c.Status != "" && c.Status != "complete" {
		st.Reasons = append(st.Reasons, "the cell did not complete ("+c.Status+")")
	}
	st.OK = st.ExitCode == 0 && len(st.Reasons) == 0
}

// thresholdReason: "mq_e2e_latency p(99) < 20ms: 31.4ms".
func thresholdReason(t results.Threshold) string {
	metric, _, _ := strings.Cut(t.Metric, "{")
	expr := t.Source
	if expr == "" {
		expr = t.Expression
	}
	got := "no data"
	if t.Value != nil {
		v := *t.Value
		if t.Unit == "ms" {
			got = report.USLabel(v * 1000)
		} else {
			got = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return metric + " " + expr + ": " + got
}

// backlogEnd is what was sent and not yet received when the cell's producers stopped (the end
// of its warm-up and measured period), from its per-second timeline.
func backlogEnd(c *results.Cell) int64 {
	end := c.WarmupS + c.DurationS
	var sent, recv uint64
	for _, p := range c.Timeline {
		if p.T < end-1e-9 {
			sent += p.Sent
			recv += p.Received
		}
	}
	if recv >= sent {
		return 0
	}
	return int64(sent - recv)
}

// pctText renders a fraction as a percentage: 0.05 → "5%", 0.125 → "12.5%".
func pctText(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e6)/1e4, 'f', -1, 64) + "%"
}
