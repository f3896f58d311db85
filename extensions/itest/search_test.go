package itest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchResult is the part of search.json the test reads (internal/search.Result).
type searchResult struct {
	Scenario string `json:"scenario"`
	Complete bool   `json:"complete"`
	ExitCode int    `json:"exit_code"`
	Search   struct {
		Precision float64 `json:"precision"`
	} `json:"search"`
	Cells []struct {
		ID        string `json:"id"`
		StartRate int    `json:"start_rate"`
		FoundRate int    `json:"found_rate"`
		FirstFail int    `json:"first_fail"`
		Held      bool   `json:"held"`
		Steps     []struct {
			Rate         int      `json:"rate"`
			Confirm      bool     `json:"confirm"`
			OK           bool     `json:"ok"`
			Reasons      []string `json:"reasons"`
			ReceiverRate float64  `json:"receiver_rate"`
			E2EP99US     float64  `json:"e2e_p99_us"`
			Dir          string   `json:"dir"`
		} `json:"steps"`
	} `json:"cells"`
}

// A capacity search against real NATS through scripts/run.sh (which sees the search block and
// runs `k6 x mqbench search`): steps at increasing rates, every passing step within the
// threshold, the rate found between the last pass and the first failure, held by the
// confirming run, and search.json / search.html / each step's results written.
func TestCapacitySearch(t *testing.T) {
	bin := k6Binary(t)
	root := repoRoot(t)
	res := t.TempDir()
	cmd := exec.Command(filepath.Join(root, "scripts", "run.sh"), "extensions/itest/testdata/search-nats.yaml")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "MQBENCH_K6="+bin, "MQ_RESULTS="+res)
	began := time.Now()
	r := execRun(t, cmd)
	took := time.Since(began)
	code, logs := r.code, r.String()
	matches, _ := filepath.Glob(filepath.Join(res, "search-nats", "*", "search.json"))
	if code != 0 || len(matches) != 1 {
		t.Fatalf("exit %d, search.json files %v (took %v)\n%s", code, matches, took, logs)
	}
	dir := filepath.Dir(matches[0])
	b, err := os.ReadFile(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	var sr searchResult
	if err := json.Unmarshal(b, &sr); err != nil {
		t.Fatalf("search.json: %v\n%s", err, b)
	}
	if !sr.Complete || sr.ExitCode != 0 || len(sr.Cells) != 1 {
		t.Fatalf("search.json: complete %v, exit %d, %d cells", sr.Complete, sr.ExitCode, len(sr.Cells))
	}
	c := sr.Cells[0]
	var search []int // the searching steps' rates, the confirming runs left out
	firstFail := 0   // the lowest rate that failed, a confirming run's included
	for i, s := range c.Steps {
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(s.Dir), "summary.json")); s.Dir == "" || err != nil {
			t.Errorf("step %d (%d/s): no results folder %q: %v", i+1, s.Rate, s.Dir, err)
		}
		last := i == len(c.Steps)-1
		switch {
		case s.Confirm && last:
			if s.Rate != c.FoundRate || !s.OK {
				t.Errorf("the confirming run at %d/s: ok %v (%v), want the found rate %d, held", s.Rate, s.OK, s.Reasons, c.FoundRate)
			}
		case s.Confirm && s.OK:
			t.Errorf("step %d: a confirming run at %d/s held but the search went on", i+1, s.Rate)
		case last:
			t.Errorf("the last step (%d/s) is not the confirming run", s.Rate)
		case !s.Confirm:
			search = append(search, s.Rate)
		}
		if s.OK {
			if s.E2EP99US >= 20000 || s.ReceiverRate < 0.9*float64(s.Rate) {
				t.Errorf("step %d at %d/s passed with e2e p99 %.0fus, received %.0f/s", i+1, s.Rate, s.E2EP99US, s.ReceiverRate)
			}
			continue
		}
		if firstFail == 0 || s.Rate < firstFail {
			firstFail = s.Rate
		}
		named := false
		for _, r := range s.Reasons {
			named = named || strings.Contains(r, "mq_") || strings.Contains(r, "dropped_iterations") || strings.Contains(r, "backlog")
		}
		if !named {
			t.Errorf("failing step %d at %d/s: reasons %q name nothing that failed", i+1, s.Rate, s.Reasons)
		}
	}
	lastOK := 0 // the highest searching step that held below the first failure
	for _, s := range c.Steps {
		if s.OK && !s.Confirm && s.Rate > lastOK && (firstFail == 0 || s.Rate < firstFail) {
			lastOK = s.Rate
		}
	}
	t.Logf("searched %v msg/s; found %d, first fail %d, held %v; took %v", search, c.FoundRate, c.FirstFail, c.Held, took)
	if len(search) < 2 || search[1] <= search[0] {
		t.Errorf("steps %v: want at least two, rising from the start", search)
	}
	if !c.Held || c.FoundRate < c.StartRate || c.FoundRate != lastOK || c.FirstFail != firstFail {
		t.Errorf("found %d (start %d), held %v, first fail %d: want held, >= start, = the highest passing step %d, first fail %d",
			c.FoundRate, c.StartRate, c.Held, c.FirstFail, lastOK, firstFail)
	}
	if firstFail > 0 && !(c.FoundRate < firstFail && float64(firstFail-c.FoundRate)/float64(c.FoundRate) < sr.Search.Precision+1e-9) {
		t.Errorf("found %d, first fail %d: not bisected to %.0f%%", c.FoundRate, firstFail, 100*sr.Search.Precision)
	}
	if firstFail == 0 && c.FoundRate != 64000 {
		t.Errorf("no step failed, but found %d, not max_rate 64000", c.FoundRate)
	}
	html, err := os.ReadFile(filepath.Join(dir, "search.html"))
	if err != nil || !bytes.Contains(html, []byte("<svg")) || !bytes.Contains(html, []byte(`data-chart="throughput"`)) {
		t.Errorf("search.html (%v) has no latency-vs-throughput chart", err)
	}
	txt, err := os.ReadFile(filepath.Join(dir, "search.txt"))
	if err != nil || !strings.Contains(r.stdout, string(txt)) {
		t.Errorf("search.txt (%v) is not what the console printed", err)
	}
	t.Logf("search.txt:\n%s", txt)
	if took > 3*time.Minute {
		t.Errorf("the search took %v", took)
	}
}
