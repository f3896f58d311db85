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
	"time"
)

// sharedSummary is what the shared-destination itests read of a merged summary.json.
type sharedSummary struct {
	ThresholdsOK bool `json:"thresholds_ok"`
	Complete     bool `json:"complete"`
	Cells        []struct {
		ID       string `json:"id"`
		Rate     int    `json:"rate"`
		Sent     uint64 `json:"sent"`
		Received uint64 `json:"received"`
		Ledger   struct {
			Issued     uint64 `json:"issued"`
			Unique     uint64 `json:"unique_received"`
			Lost       uint64 `json:"lost"`
			Duplicated uint64 `json:"duplicated"`
			Unknown    uint64 `json:"unknown"`
		} `json:"ledger"`
		E2E struct { // µs
			Count uint64  `json:"count"`
			Min   float64 `json:"min"`
			Max   float64 `json:"max"`
			P     struct {
				P50 float64 `json:"p50"`
				P90 float64 `json:"p90"`
			} `json:"percentiles"`
		} `json:"e2e_latency_us"`
	} `json:"cells"`
	Runners []struct {
		Runner int `json:"runner"`
		Cells  []struct {
			Sent     uint64 `json:"sent"`
			Received uint64 `json:"received"`
		} `json:"cells"`
	} `json:"runners"`
	Clock struct {
		Runners []struct {
			Runner        int     `json:"runner"`
			Role          string  `json:"role"`
			Reference     string  `json:"reference"`
			OffsetMs      float64 `json:"offset_ms"`
			UncertaintyMs float64 `json:"uncertainty_ms"`
			MaxDriftMs    float64 `json:"max_drift_ms"`
			SkewMs        float64 `json:"test_only_skew_ms"`
		} `json:"runners"`
		Cells []struct {
			BoundMs  float64 `json:"bound_ms"`
			Measured bool    `json:"measured"`
		} `json:"cells"`
	} `json:"clock"`
}

// runShared runs scenario over n local runners (k6 x mqbench distributed) with env added, and
// reads the merged summary; the merge's exit code is returned with it.
func runShared(t *testing.T, scenario string, n int, runID string, env ...string) (sharedSummary, int, string) {
	t.Helper()
	results := t.TempDir()
	cmd := exec.Command(k6Binary(t), "x", "mqbench", "distributed", scenario, "--runners", fmt.Sprint(n))
	cmd.Dir = repoRoot(t)
	cmd.Env = append(append(os.Environ(), "MQ_RESULTS="+results, "MQ_RUN_ID="+runID, "MQ_START_SLACK=2s"), env...)
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%v\n%s", err, out)
		}
		code = ee.ExitCode()
	}
	name := strings.TrimSuffix(filepath.Base(scenario), ".yaml")
	return readSharedSummary(t, filepath.Join(results, name, runID), code == 0, string(out)), code, string(out)
}

// readSharedSummary reads a merged summary.json (must: fail the test without one).
func readSharedSummary(t *testing.T, dir string, must bool, out string) sharedSummary {
	t.Helper()
	var s sharedSummary
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil && must {
		t.Fatalf("no merged summary: %v\n%s", err, out)
	}
	return s
}

// checkSharedRun: the merge passed; merged sent == received == the ledger's unique receipts;
// producers sent, the consumer received; nothing lost, duplicated or unknown.
func checkSharedRun(t *testing.T, s sharedSummary, out string) {
	t.Helper()
	if !s.ThresholdsOK || !s.Complete || len(s.Cells) == 0 {
		t.Fatalf("merged: ok %v complete %v cells %d\n%s", s.ThresholdsOK, s.Complete, len(s.Cells), out)
	}
	for ci, c := range s.Cells {
		l := c.Ledger
		if c.Sent == 0 || c.Sent != c.Received || c.E2E.Count != c.Received || l.Lost != 0 || l.Duplicated != 0 || l.Unknown != 0 || l.Unique != l.Issued {
			t.Errorf("cell %s: sent %d received %d e2e %d ledger %+v", c.ID, c.Sent, c.Received, c.E2E.Count, l)
		}
		for _, r := range s.Runners {
			role := s.Clock.Runners[r.Runner-1].Role
			rc := r.Cells[ci]
			if (role == "produce" && (rc.Sent == 0 || rc.Received != 0)) || (role == "consume" && (rc.Sent != 0 || rc.Received != c.Received)) {
				t.Errorf("cell %s runner %d (%s): sent %d received %d", c.ID, r.Runner, role, rc.Sent, rc.Received)
			}
		}
	}
}

// The clock-offset correction: a run whose three runners' clocks are shifted (+2 s and
// −350 ms on the producers, −1.5 s on the consumer, through the test-only hook) measures each
// shift within its reported uncertainty, and its corrected latencies match a same-clock run's:
// uncorrected, they would be off by seconds (2 s + 1.5 s for runner 1's messages).
func TestSharedClockOffsetsCorrected(t *testing.T) {
	sc := "extensions/itest/testdata/shared-nats.yaml"
	same, code, out := runShared(t, sc, 3, "same-clock")
	if code != 0 {
		t.Fatalf("same-clock run: exit %d\n%s", code, out)
	}
	checkSharedRun(t, same, out)
	skews := []time.Duration{2 * time.Second, -350 * time.Millisecond, -1500 * time.Millisecond}
	shifted, code, out := runShared(t, sc, 3, "shifted", "MQ_TEST_ONLY_CLOCK_SKEWS=2s,-350ms,-1.5s")
	if code != 0 {
		t.Fatalf("shifted run: exit %d\n%s", code, out)
	}
	checkSharedRun(t, shifted, out)
	for i, r := range shifted.Clock.Runners {
		want := float64(skews[i]) / 1e6
		if math.Abs(r.OffsetMs-want) > r.UncertaintyMs || r.SkewMs != want {
			t.Errorf("runner %d: measured offset %.3f ms ± %.3f, injected %.0f ms (recorded %.0f)", r.Runner, r.OffsetMs, r.UncertaintyMs, want, r.SkewMs)
		}
	}
	a, b := same.Cells[0].E2E, shifted.Cells[0].E2E
	bound := same.Clock.Cells[0].BoundMs + shifted.Clock.Cells[0].BoundMs
	// Two runs on a shared 2-core machine differ by their own noise too: allowed on top of
	// the bound, and 100× smaller than the smallest shift.
	const noiseMs = 3.0
	ms := func(us float64) float64 { return us / 1e3 }
	if !shifted.Clock.Cells[0].Measured || b.Min < 0 || math.Abs(ms(b.P.P50-a.P.P50)) > bound+noiseMs || math.Abs(ms(b.P.P90-a.P.P90)) > bound+noiseMs || ms(b.Max) > 1000 {
		t.Errorf("shifted clocks: e2e %+v; same clock %+v; bound %.3f ms + noise %.0f ms", b, a, bound, noiseMs)
	}
	t.Logf("same clock e2e %+v bound %.3f ms; shifted e2e %+v bound %.3f ms; offsets %+v", a, same.Clock.Cells[0].BoundMs, b, shifted.Clock.Cells[0].BoundMs, shifted.Clock.Runners)
}
