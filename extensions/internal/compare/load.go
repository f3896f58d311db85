// Package compare reads finished runs (a results folder's summary.json and hgrm/*.hgrm) and
// compares them: overlaid percentile charts and a table for several runs or brokers
// (compare.html, compare.md), and a baseline regression gate for CI.
package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// Run is one finished run as compare needs it.
type Run struct {
	Dir   string // the results folder (…/<scenario>/<timestamp>)
	Label string // how tables and legends name it
	Summary
	Dists map[string]map[string]hist.Distribution // cell id → kind → parsed .hgrm
}

// Summary is the part of summary.json compare reads (the format is documented in README).
type Summary struct {
	Scenario     string `json:"scenario"`
	RunID        string `json:"run_id"`
	FinishedAt   string `json:"finished_at"`
	ThresholdsOK bool   `json:"thresholds_ok"`
	Complete     *bool  `json:"complete"`
	Broker       struct {
		Type    string `json:"type"`
		URL     string `json:"url"`
		AckMode string `json:"ack_mode"`
	} `json:"broker"`
	Cells []Cell `json:"cells"`
}

// Cell is one matrix cell of a run.
type Cell struct {
	ID                string            `json:"id"`
	Status            string            `json:"status"`
	Size              string            `json:"size"`
	SizeBytes         int               `json:"size_bytes"`
	Rate              int               `json:"rate"`
	Sent              uint64            `json:"sent"`
	Received          uint64            `json:"received"`
	SenderRate        float64           `json:"sender_rate"`
	AckRate           float64           `json:"ack_rate"`
	ReceiverRate      float64           `json:"receiver_rate"`
	SenderBytesRate   float64           `json:"sender_bytes_per_s"`
	ReceiverBytesRate float64           `json:"receiver_bytes_per_s"`
	Ledger            map[string]any    `json:"ledger"`
	Publish           hist.Stats        `json:"publish_latency_us"`
	E2E               hist.Stats        `json:"e2e_latency_us"`
	E2EIntended       hist.Stats        `json:"e2e_intended_latency_us"`
	ScheduleLag       hist.Stats        `json:"schedule_lag_us"`
	Hgrm              map[string]string `json:"hgrm"`
	Thresholds        []struct {
		OK bool `json:"ok"`
	} `json:"thresholds"`
}

// Stats returns the cell's distribution summary of a latency kind.
func (c *Cell) Stats(kind string) (hist.Stats, bool) {
	switch kind {
	case "publish":
		return c.Publish, true
	case "e2e":
		return c.E2E, true
	case "e2e_intended":
		return c.E2EIntended, true
	case "schedule_lag":
		return c.ScheduleLag, true
	}
	return hist.Stats{}, false
}

// Lost is the ledger's lost count (0 when absent).
func (c *Cell) Lost() uint64 {
	if v, ok := c.Ledger["lost"].(float64); ok {
		return uint64(v)
	}
	return 0
}

// ThresholdsOK reports whether every threshold of the cell passed.
func (c *Cell) ThresholdsOK() bool {
	for _, t := range c.Thresholds {
		if !t.OK {
			return false
		}
	}
	return true
}

// Cell finds a cell by id.
func (r *Run) Cell(id string) *Cell {
	for i := range r.Cells {
		if r.Cells[i].ID == id {
			return &r.Cells[i]
		}
	}
	return nil
}

// Resolve turns what the user named into a results folder: a folder holding summary.json, or
// a folder of runs (results/<scenario>), whose latest run (timestamps sort) is taken.
func Resolve(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "summary.json")); err == nil {
		return dir, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("%s: not a results folder: %w", dir, err)
	}
	var runs []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "summary.json")); e.IsDir() && err == nil {
			runs = append(runs, e.Name())
		}
	}
	if len(runs) == 0 {
		return "", fmt.Errorf("%s: no summary.json in it or in its sub-folders (give a run's folder, results/<scenario>/<timestamp>, or results/<scenario> for its latest run)", dir)
	}
	sort.Strings(runs)
	return filepath.Join(dir, runs[len(runs)-1]), nil
}

// Load reads a run's summary.json and the .hgrm files it lists.
func Load(dir string) (*Run, error) {
	dir, err := Resolve(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Dists: map[string]map[string]hist.Distribution{}}
	if err := json.Unmarshal(b, &r.Summary); err != nil {
		return nil, fmt.Errorf("%s/summary.json: %w", dir, err)
	}
	if r.Scenario == "" || r.Cells == nil {
		return nil, fmt.Errorf("%s/summary.json: not an mqbench summary (no scenario or cells)", dir)
	}
	for _, c := range r.Cells {
		for kind, rel := range c.Hgrm {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(rel)))
			if err != nil {
				continue // the summary's percentiles still serve; the chart just has fewer points
			}
			d, err := hist.ParseHgrm(f)
			f.Close()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Join(dir, rel), err)
			}
			if r.Dists[c.ID] == nil {
				r.Dists[c.ID] = map[string]hist.Distribution{}
			}
			r.Dists[c.ID][kind] = d
		}
	}
	r.Label = r.Scenario
	return r, nil
}

// LoadAll loads several runs and gives each a distinct label: the scenario name, plus the
// run's folder name when two runs share a scenario.
func LoadAll(dirs []string) ([]*Run, error) {
	var runs []*Run
	count := map[string]int{}
	for _, d := range dirs {
		r, err := Load(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
		count[r.Scenario]++
	}
	seen := map[string]bool{}
	for _, r := range runs {
		if count[r.Scenario] > 1 {
			r.Label = r.Scenario + "@" + filepath.Base(r.Dir)
		}
		base := r.Label
		for n := 2; seen[r.Label]; n++ {
			r.Label = fmt.Sprintf("%s#%d", base, n)
		}
		seen[r.Label] = true
	}
	return runs, nil
}
