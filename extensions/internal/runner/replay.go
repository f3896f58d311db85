package runner

import (
	"context"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/header"
	"github.com/mqbench/xk6-mqbench/internal/pacer"
	"github.com/mqbench/xk6-mqbench/internal/replay"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// replayCell sends cell c's recording, read a row at a time: each row at start + its offset
// ÷ speed (its intended send time), with its size and key, round-robin over the cell's
// producers, until the recording (or, looping, the cell's duration) ends. Sends never wait
// for acknowledgements, so one loop keeps the recording's times; how late each row went out
// is its schedule lag. With precise pacing the pacer wakes the runtime at each row's time.
func (r *Runner) replayCell(ctx context.Context, c *cellState, start time.Time) PublishResult {
	rp := c.cell.Replay
	r.begin(c)
	c.tl.begin(int64(start.Sub(r.epoch)))
	warmEnd := start.Add(c.cell.Warmup)
	end := warmEnd.Add(c.cell.Duration)
	var next atomic.Int64 // the next row's offset from start (-1: none), for the pacer
	if r.sc.Workload.Pacing == scenario.PacingPrecise {
		defer pacer.Default.AddTicks(start, func(d time.Duration) time.Duration {
			if n := time.Duration(next.Load()); n >= 0 {
				return max(n, d)
			}
			return -1
		}, end)()
	}
	length := time.Duration(float64(rp.Summary.Last)/rp.Speed) + time.Millisecond
	var total PublishResult
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for base := time.Duration(0); ctx.Err() == nil; base += length {
		more, err := r.replayOnce(ctx, c, start, base, end, warmEnd, &next, timer, &total)
		if err != nil && total.Err == nil {
			total.Err = err
		}
		if !more || !rp.Loop {
			break
		}
	}
	next.Store(-1)
	return total
}

// replayOnce sends the recording once, its offsets after base; more says the cell's end was
// not reached.
func (r *Runner) replayOnce(ctx context.Context, c *cellState, start time.Time, base time.Duration, end, warmEnd time.Time,
	next *atomic.Int64, timer *time.Timer, total *PublishResult) (more bool, err error) {
	rp := c.cell.Replay
	rd, err := replay.Open(rp.File, rp.Name)
	if err != nil {
		return false, err
	}
	defer rd.Close()
	for ctx.Err() == nil {
		row, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil { // the file changed since it was checked
			return false, err
		}
		at := base + time.Duration(float64(row.Offset)/rp.Speed)
		due := start.Add(at)
		if !due.Before(end) {
			return false, nil
		}
		next.Store(int64(at))
		if d := time.Until(due); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return false, nil
			}
		}
		now := time.Now()
		warm, flags := due.Before(warmEnd), uint8(0)
		if warm {
			flags = header.FlagWarmup
		} else if !c.closed.Load() {
			c.lag.Record(int64(now.Sub(due)))
			c.markCPUStart()
		}
		pi := int(c.rr.Add(1)-1) % c.cell.Producers
		res, _ := r.sendLooped(ctx, c, pi, flags, int64(due.Sub(r.epoch)), nil, &row, PublishResult{Warmup: warm, Lag: now.Sub(due)})
		total.add(res)
	}
	return false, nil
}
