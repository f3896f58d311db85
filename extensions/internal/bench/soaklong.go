package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SoakLong: hours, as soak tests run (not in the default set). NATS core, 1 KB at SOAK_RATE
// (20,000 msg/s) for SOAK_LONG_TOTAL (2 h) in one k6 process, as consecutive cells of
// SOAK_LONG_WINDOW (10 min), so each window has its own dropped iterations and p99; bin/k6's
// resident memory is read from /proc every 5 s and each window keeps its highest. Aims: RSS of
// the last window <= 1.2 x the first's, no dropped iteration, p99 flat.
func SoakLong(e *Env) error {
	total, err := e.Seconds("SOAK_LONG_TOTAL", "7200s")
	if err != nil {
		return err
	}
	window, err := e.Seconds("SOAK_LONG_WINDOW", "600s")
	if err != nil {
		return err
	}
	rate, err := e.PositiveInt("SOAK_RATE", 20000)
	if err != nil {
		return err
	}
	n := int(total / window)
	if n < 2 {
		return fmt.Errorf("SOAK_LONG_TOTAL (%s) must hold at least two SOAK_LONG_WINDOWs (%s)", Secs(total), Secs(window))
	}
	batch := max(1, rate/2000)
	if err := e.BrokerUp("nats"); err != nil {
		return err
	}
	e.Printf("== soak-long: NATS core, 1 KB at %d msg/s (batch %d), %d windows of %s in one process, %d cores\n", rate, batch, n, Secs(window), Cores())
	step, err := Step("soak-long", natsCore, "1KB", window)
	if err != nil {
		return err
	}
	spec := step.Named("soak-long", rate, batch)
	for len(spec.Matrix) < n {
		spec.Matrix = append(spec.Matrix, spec.Matrix[0])
	}
	var rss rssSamples
	ran, err := e.RunWatched(spec, rss.watch)
	if err != nil {
		return err
	}
	e.Printf("\n%-8s %10s %10s %12s %12s  %s\n", "window", "max RSS", "dropped", "e2e p99", "lag p99", "sent / received / lost")
	var first, last, minP99, maxP99, dropped float64
	for i, c := range ran.Summary.Cells {
		from, _ := time.Parse(time.RFC3339Nano, c.StartedAt)
		to, _ := time.Parse(time.RFC3339Nano, c.EndedAt)
		mb := rss.max(from, to)
		f, err := CellFigures(&ran.Summary, c.ID, "dropped_iterations", "e2e_p99_us", "schedule_lag_p99_us", "sent", "received", "lost")
		if err != nil {
			return err
		}
		e.Printf("%-8s %8.0fMB %10.0f %10.1fus %10.1fus  %s\n", windowEnd(window*time.Duration(i+1)), mb, f[0], f[1], f[2], counts(f[3], f[4], f[5]))
		if i == 0 {
			first, minP99, maxP99 = mb, f[1], f[1]
		}
		last, minP99, maxP99, dropped = mb, min(minP99, f[1]), max(maxP99, f[1]), dropped+f[0]
	}
	e.Printf("\nRSS last / first window %sx (aim <= 1.2), dropped iterations %.0f (aim 0), e2e p99 highest / lowest window %sx\n",
		Ratio(last, first), dropped, Ratio(maxP99, minP99))
	if err := e.BrokerDown("nats"); err != nil {
		return err
	}
	return e.Headline("soak-long", fmt.Sprintf("max RSS of bin/k6, last %s window ÷ first, %s in all (no native tool)", Secs(window), Secs(total)),
		fmt.Sprintf("%.0f MB", last), fmt.Sprintf("%.0f MB, first window", first), Ratio(last, first)+"x")
}

// windowEnd labels a window by where it ends: whole minutes as minutes, anything else in
// seconds (a scaled-down check's 20 s windows).
func windowEnd(d time.Duration) string {
	if d%time.Minute == 0 {
		return fmt.Sprintf("%d min", int(d.Minutes()))
	}
	return Secs(d)
}

// rssSamples are a child's resident memory readings over time.
type rssSamples struct {
	mu sync.Mutex
	at []time.Time
	mb []float64
}

// watch reads the process's VmRSS every 5 s until it exits (childrun's Started hook).
func (r *rssSamples) watch(p *os.Process) {
	go func() {
		path := "/proc/" + strconv.Itoa(p.Pid) + "/status"
		for {
			b, err := os.ReadFile(path)
			if err != nil {
				return // it ended
			}
			if kb, ok := vmRSS(string(b)); ok {
				r.mu.Lock()
				r.at, r.mb = append(r.at, time.Now()), append(r.mb, kb/1024)
				r.mu.Unlock()
			}
			time.Sleep(5 * time.Second)
		}
	}()
}

// max is the highest reading between from and to (0 without one).
func (r *rssSamples) max(from, to time.Time) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	best := 0.0
	for i, t := range r.at {
		if !t.Before(from) && !t.After(to) {
			best = max(best, r.mb[i])
		}
	}
	return best
}

// vmRSS is the VmRSS line of /proc/PID/status, in kB.
func vmRSS(status string) (float64, bool) {
	for _, l := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb, err == nil
		}
	}
	return 0, false
}
