package bench

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/merge/mergetest"
)

// Merge: the merge's own time and peak memory at the k6-operator's scale, no broker needed.
// Synthetic shards of a 5-cell run at 10,000 msg/s per cell for 30 s (latencies 20 µs to
// 500 ms, every runner's share: package mergetest) for 10, 30 and 100 runners, and 30 runners
// on one shared destination (ledgers unioned); each merged by bin/k6 x mqbench merge as a
// child, 3 times: the best wall time and the largest max RSS (getrusage). Aim: 100 runners
// in under 2 s and 1 GB.
func Merge(e *Env) error {
	e.Printf("== merge: synthetic shards of a 5-cell run, 10000 msg/s per cell for 30 s, %d cores\n\n", Cores())
	e.Printf("%-10s %-10s %10s %12s %12s %4s\n", "runners", "dest", "shards MB", "merge ms", "max RSS MB", "rc")
	var ms100, rss100 float64
	for _, c := range []struct {
		n      int
		shared bool
	}{{10, false}, {30, false}, {100, false}, {30, true}} {
		dest := "per-runner"
		if c.shared {
			dest = "shared"
		}
		run := filepath.Join(e.Dir, "merge-scale", fmt.Sprintf("%d-%s", c.n, dest))
		if err := os.RemoveAll(run); err != nil {
			return err
		}
		dir := filepath.Join(run, "merge-scale", "run-1")
		// 10 runners with histograms of their own, the others copies (mergetest.Synthetic.Distinct).
		sy := mergetest.Synthetic{Runners: c.n, Rate: 10_000, Duration: 30 * time.Second, Shared: c.shared, Seed: uint64(c.n), Distinct: 10}
		if _, err := mergetest.WriteSynthetic(dir, sy); err != nil {
			return err
		}
		size, err := shardBytes(dir)
		if err != nil {
			return err
		}
		best, rss, rc := time.Duration(0), int64(0), 0
		for range 3 {
			took, maxRSS, code, err := e.timeMerge(dir)
			if err != nil {
				return err
			}
			if best == 0 || took < best {
				best = took
			}
			rss, rc = max(rss, maxRSS), max(rc, code)
		}
		e.Printf("%-10d %-10s %10.1f %12d %12.0f %4d\n", c.n, dest, float64(size)/1e6, best.Milliseconds(), float64(rss)/1e6, rc)
		if c.n == 100 {
			ms100, rss100 = float64(best.Milliseconds()), float64(rss)/1e6
		}
		if err := os.RemoveAll(run); err != nil {
			return err
		}
	}
	return e.Headline("merge", "merge of 100 runners' shards, 5 cells: ms and max RSS (aim: 2000 ms, 1000 MB)",
		fmt.Sprintf("%.0f ms, %.0f MB", ms100, rss100), "2000 ms, 1000 MB (aim)", Ratio(ms100, 2000)+"x")
}

// timeMerge runs bin/k6 x mqbench merge on dir: its wall time, max RSS (bytes) and exit code.
func (e *Env) timeMerge(dir string) (time.Duration, int64, int, error) {
	cmd := exec.Command(e.K6, "x", "mqbench", "merge", dir)
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return 0, 0, 0, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0, 0, fmt.Errorf("no resource usage for %s", e.K6)
	}
	return took, ru.Maxrss * 1024, cmd.ProcessState.ExitCode(), nil // Linux: Maxrss in KiB
}

// shardBytes is the size of the runner folders' files (runner-<i>-of-<n>/ only: what the
// merge reads, not what it wrote).
func shardBytes(dir string) (int64, error) {
	var n int64
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "runner-") {
			continue
		}
		err := filepath.WalkDir(filepath.Join(dir, e.Name()), func(_ string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			info, err := d.Info()
			if err == nil {
				n += info.Size()
			}
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}
