package itest

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// One run split over N local runners exactly as the k6-operator splits it (k6 x mqbench distributed:
// the operator's runner arguments, --paused, resumed one after another over REST), against the
// shared nats-server, then merged: the merged counts are the runners' sums, each runner took
// its share of every cell's rate (rate/N), the total is the cell's rate, nothing was lost, and
// the merge judged the scenario's thresholds (exit 0). N = 3 splits unevenly in wall time but
// evenly in rate (VU budgets are multiples of N); N = 1 is a merge of one shard.
func TestDistributedRunMergesToOneVerdict(t *testing.T) {
	bin := k6Binary(t)
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("%d runners", n), func(t *testing.T) {
			sideBySide(t) // each run has its own subjects and run id
			results, runID := t.TempDir(), fmt.Sprintf("itest-%d", n)
			src, err := os.ReadFile(filepath.Join(repoRoot(t), "extensions/itest/testdata/distributed-nats.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "distributed-nats.yaml")
			mine := strings.Replace(string(src), "destination: mqbench.itest.dist,", fmt.Sprintf("destination: mqbench.itest.dist.r%d,", n), 1)
			if mine == string(src) {
				t.Fatal("distributed-nats.yaml names no destination mqbench.itest.dist")
			}
			if err := os.WriteFile(file, []byte(mine), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, "x", "mqbench", "distributed", file, "--runners", fmt.Sprint(n))
			cmd.Dir = repoRoot(t)
			cmd.Env = append(os.Environ(), "MQ_RESULTS="+results, "MQ_RUN_ID="+runID, "MQ_START_SLACK=2s")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("distributed run of %d: %v\n%s", n, err, out)
			}
			dir := filepath.Join(results, "distributed-nats", runID)
			var merged struct {
				ThresholdsOK bool `json:"thresholds_ok"`
				Complete     bool `json:"complete"`
				Cells        []struct {
					ID         string  `json:"id"`
					Rate       int     `json:"rate"`
					Sent       uint64  `json:"sent"`
					Received   uint64  `json:"received"`
					SenderRate float64 `json:"sender_rate"`
					Ledger     struct {
						Lost, Duplicated uint64
					} `json:"ledger"`
					E2E struct {
						Count uint64 `json:"count"`
					} `json:"e2e_latency_us"`
				} `json:"cells"`
				Runners []struct {
					Runner int `json:"runner"`
					Cells  []struct {
						ID         string  `json:"id"`
						Sent       uint64  `json:"sent"`
						Received   uint64  `json:"received"`
						SenderRate float64 `json:"sender_rate"`
					} `json:"cells"`
				} `json:"runners"`
			}
			b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
			if err != nil {
				t.Fatalf("no merged summary: %v\n%s", err, out)
			}
			if err := json.Unmarshal(b, &merged); err != nil {
				t.Fatal(err)
			}
			if !merged.ThresholdsOK || !merged.Complete || len(merged.Runners) != n || len(merged.Cells) != 2 {
				t.Fatalf("merged: ok %v complete %v runners %d cells %d\n%s", merged.ThresholdsOK, merged.Complete, len(merged.Runners), len(merged.Cells), out)
			}
			for ci, c := range merged.Cells {
				var sent, recv uint64
				for _, r := range merged.Runners {
					rc := r.Cells[ci]
					sent += rc.Sent
					recv += rc.Received
					share := float64(c.Rate) / float64(n)
					if math.Abs(rc.SenderRate-share) > 0.05*share {
						t.Errorf("cell %s runner %d: %.1f msg/s, want its share %.1f", c.ID, r.Runner, rc.SenderRate, share)
					}
				}
				if sent != c.Sent || recv != c.Received || c.Received != c.Sent || c.E2E.Count != c.Received {
					t.Errorf("cell %s: merged sent %d received %d e2e %d, runners' sums %d/%d", c.ID, c.Sent, c.Received, c.E2E.Count, sent, recv)
				}
				if c.Ledger.Lost != 0 || c.Ledger.Duplicated != 0 {
					t.Errorf("cell %s: ledger %+v", c.ID, c.Ledger)
				}
				if math.Abs(c.SenderRate-float64(c.Rate)) > 0.05*float64(c.Rate) {
					t.Errorf("cell %s: merged rate %.1f, want %d", c.ID, c.SenderRate, c.Rate)
				}
			}
			t.Logf("%d runners: cells %+v", n, merged.Cells)
		})
	}
}
