package scenario

import (
	"math"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/replay"
)

// Replay is a cell that replays a recording: each row's message is sent at the row's offset
// divided by Speed (its intended send time), with the row's size and key. The recording is
// read whole before anything connects (Summary), then again, a row at a time, as it runs.
type Replay struct {
	File    string // resolved, inside the scenario's folder
	Name    string // as the scenario wrote it, for messages
	Speed   float64
	Loop    bool // start over at the end, until the cell's duration
	Summary replay.Summary
}

type rawReplay struct {
	File  string  `yaml:"file"`
	Speed float64 `yaml:"speed"`
	Loop  bool    `yaml:"loop"`
}

// SizeReplayLabel and RateReplay are a replay cell's size and rate tags: both come from the
// recording.
const (
	SizeReplayLabel = "replay"
	RateReplay      = "replay"
)

// replayCell reads a cell's replay block: the file (in the scenario's folder), the speed, and
// every row of the recording, whose problems are the scenario's (file:line). The cell lasts
// the recording's length ÷ speed, or its duration when it loops; its warm-up is the first
// part of that.
func (d *decoder) replayCell(c *Cell, rr *rawReplay, p string, dur time.Duration) {
	p += ".replay"
	c.SizeLabel = SizeReplayLabel
	rp := &Replay{Name: rr.File, Speed: 1, Loop: rr.Loop}
	if d.set(p + ".speed") {
		if !(rr.Speed >= 0.01 && rr.Speed <= 100000) {
			d.errorf(p+".speed", "must be from 0.01 to 100000 (2 replays twice as fast), got %v", rr.Speed)
			return
		}
		rp.Speed = rr.Speed
	}
	if !d.set(p + ".file") {
		d.missing(p + ".file")
		return
	}
	if !d.usable(p+".file") || strings.ContainsFunc(rr.File, unicode.IsControl) {
		return
	}
	rp.File = rr.File
	if !filepath.IsAbs(rp.File) {
		rp.File = filepath.Join(filepath.Dir(d.file), rp.File)
	}
	if msg := payload.Unreadable(rp.File); msg != "" {
		d.errorf(p+".file", "cannot read recording %s: %s", rr.File, msg)
		return
	}
	if _, in, err := payload.Inside(rp.File, filepath.Dir(d.file)); err != nil || !in {
		d.errorf(p+".file", "must be in the scenario's folder or below it (symlinks resolved)")
		return
	}
	sum, probs := replay.Check(rp.File, rr.File)
	for _, msg := range probs {
		d.errorf(p+".file", "%s", msg)
	}
	if len(probs) > 0 {
		return
	}
	rp.Summary = sum
	length := time.Duration(float64(sum.Last)/rp.Speed) + time.Millisecond
	switch {
	case rp.Loop && dur == 0:
		d.errorf(p+".loop", "a looping replay needs the cell's duration (it starts over until then)")
		return
	case rp.Loop:
		c.Duration = dur
	default:
		c.Duration = length - c.Warmup
	}
	if c.Duration < minDuration {
		d.errorf(p+".file", "the recording lasts %s at speed %g (warm-up %s included); a cell needs at least %s measured", fmtDuration(length), rp.Speed, fmtDuration(c.Warmup), fmtDuration(minDuration))
		return
	}
	c.Replay, c.Size = rp, sum.MaxSize
	c.Rate = max(1, int(math.Ceil(float64(sum.Rows)/length.Seconds())))
	if c.Rate > maxRate {
		d.errorf(p+".speed", "replays %d messages per second on average; the limit is %d", c.Rate, maxRate)
	}
}
