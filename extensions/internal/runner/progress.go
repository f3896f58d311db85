package runner

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// ProgressEvery is this process's progress interval (runenv.ProgressEvery, read with getenv):
// off by default on a terminal, where `k6 run` draws its own bars (`k6 x mqbench run` asks
// for 1s there and hides k6's).
func ProgressEvery(getenv runenv.Getenv) time.Duration {
	return runenv.ProgressEvery(getenv, isTerminal(os.Stdout))
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// progressAcc is what a cell measured since its last progress line: the counters there,
// and the e2e distribution of the interval (merged from the per-second intervals).
type progressAcc struct {
	mu         sync.Mutex
	at         int64 // r.now() of the last line; 0: the cell's start
	sent, recv uint64
	e2e        *hist.Hist
}

// addE2E merges one per-second e2e interval into the progress distribution.
func (p *progressAcc) addE2E(in hist.Interval) {
	if in.Encoded == nil {
		return
	}
	h, err := hist.DecodeV2(in.Encoded)
	if err != nil {
		return
	}
	p.mu.Lock()
	if p.e2e == nil {
		p.e2e = hist.New()
	}
	p.e2e.Merge(h)
	p.mu.Unlock()
}

// StartProgress writes a progress line every `every` while cells run, e.g.
//
//	mqbench c2 (2/5, 1KB at 3000/s) 12s/38s, run 50s/3m15s: sent 3000/s recv 2998/s, e2e p50 106.2us p99 582.7us, backlog 3, errors 0, lost 0
//
// the current cell, its elapsed and planned time, the run's, and over the last interval the
// achieved send and receive rates and the e2e median and p99, then the backlog, the cell's
// publish errors and the messages lost in the cells that ended. On a terminal the line is
// rewritten in place (a new one per cell); elsewhere it is appended. every <= 0 does nothing.
func (r *Runner) StartProgress(w io.Writer, every, gap time.Duration) {
	if every <= 0 || len(r.cells) == 0 {
		return
	}
	live := false
	if f, ok := w.(*os.File); ok {
		live = isTerminal(f)
	}
	var total time.Duration
	for _, c := range r.cells {
		total += c.cell.Warmup + c.cell.Duration + c.cell.Drain
	}
	total += time.Duration(len(r.cells)-1) * gap
	stop, done := make(chan struct{}), make(chan struct{})
	r.mu.Lock()
	r.stopProgress = func() { close(stop); <-done }
	r.mu.Unlock()
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		shown, lastCell := false, -1
		for {
			select {
			case <-t.C:
			case <-stop:
			}
			line, cell, more := r.progress(total)
			select {
			case <-stop:
				more = false
			default:
			}
			switch {
			case !more:
				if live && shown {
					_, _ = io.WriteString(w, "\n") // the summary starts on a line of its own
				}
				return
			case line == "":
			case live:
				if shown && cell != lastCell {
					_, _ = io.WriteString(w, "\n") // keep the finished cell's last line
				}
				_, _ = io.WriteString(w, "\r"+line+"\x1b[K")
				shown, lastCell = true, cell
			default:
				_, _ = io.WriteString(w, line+"\n")
			}
		}
	}()
}

// progressLine is the line progress would print now (tests).
func (r *Runner) progressLine(total time.Duration) (string, bool) {
	line, _, more := r.progress(total)
	return line, more
}

// progress describes the latest started cell; more is false once the run is over.
func (r *Runner) progress(total time.Duration) (line string, cell int, more bool) {
	r.mu.Lock()
	closed := r.closed
	r.mu.Unlock()
	if closed {
		return "", 0, false
	}
	first, ok := r.cells[0].tl.started()
	if !ok {
		return "", 0, true
	}
	cur := 0
	var lost uint64
	for i, c := range r.cells {
		if _, ok := c.tl.started(); ok {
			cur = i
		}
		c.mu.Lock()
		if c.final != nil {
			lost += c.final.Lost
		}
		c.mu.Unlock()
	}
	c := r.cells[cur]
	c.mu.Lock()
	done := c.final != nil
	c.mu.Unlock()
	if done && cur == len(r.cells)-1 {
		return "", cur, false
	}
	now := r.now()
	start, _ := c.tl.started()
	k := c.cell
	state := fmt.Sprintf("%s/%s", short(time.Duration(now-start)), short(k.Warmup+k.Duration+k.Drain))
	if done {
		state = "done, next cell starting"
	}
	sent, recv, errs := c.sent.Load()+c.warmupSent.Load(), c.received.Load()+c.warmupRecvd.Load(), c.errors.Load()
	p := &c.prog
	p.mu.Lock()
	if p.at == 0 {
		p.at = start
	}
	secs := time.Duration(now - p.at).Seconds()
	rates := "sent - recv -"
	if secs >= 0.1 { // a cell that just started: no rate yet
		rates = fmt.Sprintf("sent %.0f/s recv %.0f/s", float64(sent-p.sent)/secs, float64(recv-p.recv)/secs)
	}
	e2e := "e2e -"
	if p.e2e != nil && p.e2e.Count() > 0 {
		v := p.e2e.View()
		e2e = "e2e p50 " + results.Micros(v.Quantile(50)/1e3) + " p99 " + results.Micros(v.Quantile(99)/1e3)
	}
	p.at, p.sent, p.recv, p.e2e = now, sent, recv, nil
	p.mu.Unlock()
	backlog := "-"
	if last, _, _, ok := c.backlog.get(); ok {
		backlog = fmt.Sprint(last)
	}
	rate := k.RateLabel() + "/s"
	if len(k.Stages) > 0 { // a profile: the rate it is at now
		rate = fmt.Sprintf("target %.0f/s", k.TargetAt(time.Duration(now-start)))
	}
	return fmt.Sprintf("mqbench %s (%d/%d, %s at %s) %s, run %s/%s: %s, %s, backlog %s, errors %d, lost %d",
		k.ID, cur+1, len(r.cells), k.SizeLabel, rate, state,
		short(time.Duration(now-first)), short(total), rates, e2e, backlog, errs, lost), cur, true
}

// short formats a duration to the second: 12s, 3m15s, 1h2m0s.
func short(d time.Duration) string {
	return max(d.Round(time.Second), 0).String()
}
