package itest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// abort_on_fail and delay_abort_eval on a threshold mqbench judges: k6 stops the run soon
// after the threshold fails (k6 checks every 2 s), not before the delay, with exit 99; the
// results say what was measured, the failing threshold with its value, and the cells that
// never ran.
func TestAbortOnFailStopsTheRun(t *testing.T) {
	k6Binary(t)
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "extensions/itest/testdata/abort-on-fail.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, delay := range []time.Duration{time.Second, 5 * time.Second} {
		t.Run("delay "+delay.String(), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "abort-on-fail.yaml")
			body := strings.Replace(string(src), "ABORT_DELAY", delay.String(), 1)
			if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			r := runScenario(t, file)
			took := time.Since(start)
			if r.code != 99 || r.summary == nil {
				t.Fatalf("exit %d, want 99 with a summary\n%s", r.code, r)
			}
			// The whole run would take 2 × (8 s + 1 s drain) + 1 s gap = 19 s.
			if took > 14*time.Second || took < delay {
				t.Errorf("run took %v: want it stopped after the %v delay and well before 19 s", took, delay)
			}
			s := r.summary
			if len(s.Cells) != 2 || s.Cells[0].Sent == 0 || s.Cells[1].Sent != 0 {
				t.Errorf("cells: %+v", s.Cells)
			}
			var th *threshold
			for i := range s.Thresholds {
				if s.Thresholds[i].Metric == "mq_e2e_latency{cell:c1}" {
					th = &s.Thresholds[i]
				}
			}
			if th == nil || th.OK || th.Value == nil || *th.Value <= 0.001 || th.EvaluatedBy != "mqbench" {
				t.Fatalf("c1's threshold not reported failing with its measured p50: %+v", th)
			}
			if !strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stdout, "p(50) < 1us") {
				t.Errorf("console does not show the failing threshold:\n%s", r.stdout)
			}
		})
	}
}
