package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// defaultProgressEvery is how often a long run reports progress when stdout is not a terminal.
const defaultProgressEvery = 10 * time.Second

// ProgressEvery reads MQ_PROGRESS: a duration ("5s"), or "off". Unset: every 10 s when
// stdout is not a terminal (CI logs), off on a terminal, where k6 draws live progress bars.
func ProgressEvery() time.Duration {
	v := strings.TrimSpace(os.Getenv("MQ_PROGRESS"))
	switch v {
	case "":
		if fi, err := os.Stdout.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			return 0
		}
		return defaultProgressEvery
	case "off", "0", "false", "no":
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 100*time.Millisecond {
		return defaultProgressEvery
	}
	return d
}

// StartProgress writes one plain line to w every `every` while cells run, e.g.
//
//	mqbench: cell c2 (2/5, 1KB at 3000/s) 12s/38s, run 50s/3m15s, sent 24000 recv 23990
//
// naming the current cell, its elapsed and planned time, the whole run's, and the cell's
// message counts (warm-up included). gap is the pause between cells. every <= 0 does nothing.
// The line stops when the run is closed or its last cell ended.
func (r *Runner) StartProgress(w io.Writer, every, gap time.Duration) {
	if every <= 0 || len(r.cells) == 0 {
		return
	}
	var total time.Duration
	for _, c := range r.cells {
		total += c.cell.Warmup + c.cell.Duration + c.cell.Drain
	}
	total += time.Duration(len(r.cells)-1) * gap
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for range t.C {
			line, more := r.progressLine(total)
			if !more {
				return
			}
			if line != "" {
				_, _ = io.WriteString(w, line+"\n")
			}
		}
	}()
}

// progressLine describes the latest started cell; more is false once the run is over.
func (r *Runner) progressLine(total time.Duration) (line string, more bool) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return "", false
	}
	first, ok := r.cells[0].tl.started()
	if !ok {
		return "", true
	}
	cur := 0
	for i, c := range r.cells {
		if _, ok := c.tl.started(); ok {
			cur = i
		}
	}
	c := r.cells[cur]
	c.mu.Lock()
	done := c.final != nil
	c.mu.Unlock()
	if done && cur == len(r.cells)-1 {
		return "", false
	}
	now := r.now()
	start, _ := c.tl.started()
	k := c.cell
	state := fmt.Sprintf("%s/%s", short(time.Duration(now-start)), short(k.Warmup+k.Duration+k.Drain))
	if done {
		state = "done, next cell starting"
	}
	return fmt.Sprintf("mqbench: cell %s (%d/%d, %s at %s/s) %s, run %s/%s, sent %d recv %d",
		k.ID, cur+1, len(r.cells), k.SizeLabel, k.RateLabel(), state,
		short(time.Duration(now-first)), short(total),
		c.sent.Load()+c.warmupSent.Load(), c.received.Load()+c.warmupRecvd.Load()), true
}

// short formats a duration to the second: 12s, 3m15s, 1h2m0s.
func short(d time.Duration) string {
	return max(d.Round(time.Second), 0).String()
}
