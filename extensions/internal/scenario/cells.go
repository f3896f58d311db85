package scenario

// The matrix: cells, each a size and a rate with the workload's values unless it overrides them.

import (
	"fmt"
	"math"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/mqbench/xk6-mqbench/internal/header"
)

func (d *decoder) cells(raw []rawCell, w Workload) []Cell {
	switch {
	case !d.set("matrix"):
		d.missing("matrix")
		return nil
	case !d.usable("matrix"):
		return nil
	case len(raw) == 0:
		d.errorf("matrix", "needs at least one cell, like - { size: 1KB, rate: 1000 }")
	case len(raw) > maxCells:
		d.errorf("matrix", "has %d cells; at most %d are allowed", len(raw), maxCells)
	}
	var cells []Cell
	firstByID := map[string]string{}
	for i := range raw {
		p := fmt.Sprintf("matrix[%d]", i)
		if d.bad[p] {
			continue
		}
		c := d.cell(&raw[i], p, i, w, i == len(raw)-1)
		if first, dup := firstByID[c.ID]; dup {
			hint := ""
			if !d.set(p + ".name") {
				hint = "; a cell without a name is named c<position>"
			}
			d.errorf(p+".name", "duplicate cell name %q (also %s)%s", c.ID, first, hint)
		} else {
			firstByID[c.ID] = p
		}
		cells = append(cells, c)
	}
	return cells
}

func (d *decoder) cell(rc *rawCell, p string, i int, w Workload, last bool) Cell {
	c := Cell{ID: fmt.Sprintf("c%d", i+1)}
	if d.usable(p + ".name") {
		if !cellNameRE.MatchString(rc.Name) {
			d.errorf(p+".name", "cell name %q must be 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit", rc.Name)
		}
		c.ID = rc.Name
	}
	drainOnly := d.usable(p+".producers") && rc.Producers == 0
	replaying := d.set(p + ".replay")
	switch {
	case replaying: // the recording gives sizes, rate and length
		d.profileKeys(p, "replay", "size", "rate", "stages", "steps", "burst", "messages", "backlog", "start_rate", "batch", "vus", "max_vus")
	case !d.set(p + ".size"):
		if !drainOnly {
			d.missing(p + ".size")
		}
	case d.resolve(&rc.Size) != nil && d.resolve(&rc.Size).Kind == yaml.MappingNode:
		d.sizeMix(&c, d.resolve(&rc.Size), p+".size")
	case d.usable(p + ".size"):
		var msg string
		if c.Size, c.SizeLabel, msg = parseSize(&rc.Size); msg != "" {
			d.errorf(p+".size", "%s", msg)
		}
	}
	switch {
	case replaying:
	case !d.set(p+".rate") && drainOnly:
	case d.set(p + ".stages"):
		d.stages(&c, rc, p)
	case d.set(p + ".steps"):
		d.profileKeys(p, "steps", "rate", "duration", "messages", "backlog", "burst", "start_rate")
		if d.usable(p + ".steps") {
			d.steps(&c, &rc.Steps, p)
		}
	case !d.set(p + ".rate"):
		d.missing(p + ".rate")
	case !d.usable(p + ".rate"):
	default:
		var msg string
		if c.Rate, c.Max, msg = parseRate(&rc.Rate); msg != "" {
			d.errorf(p+".rate", "%s", msg)
		}
	}
	if !d.set(p+".stages") && !d.set(p+".steps") && d.set(p+".start_rate") {
		d.errorf(p+".start_rate", "applies to a cell with stages only (a constant rate is rate:)")
	}
	if c.Size > 0 && c.Rate > 0 && c.MeanSize()*float64(c.Rate) > maxBytesPerSecond {
		d.errorf(p+".rate", "%s at %d msg/s is %s/s, more than any single link carries (the bound is %s/s, a 100 Gbit/s link)",
			c.SizeLabel, c.Rate, fmtBytes(c.MeanSize()*float64(c.Rate)), fmtBytes(maxBytesPerSecond))
	}
	c.Producers = d.intIn(p+".producers", rc.Producers, w.Producers, 0, maxConnections)
	c.Consumers = w.Consumers
	if d.usable(p+".consumers") && rc.Consumers == 0 {
		c.Consumers = 0 // a producer-only cell: the run's consumers are held back (handoff.go)
	} else if d.set(p + ".consumers") {
		// Consumers subscribe once, before the first cell, and stay for the whole run (a
		// Kafka group would rebalance, a pub/sub subscriber would miss messages, if they
		// came and went between cells).
		d.errorf(p+".consumers", "consumers are connected once for the whole run: set workload.consumers (a cell may only hold them back, with consumers: 0)")
	}
	if c.Size > 0 && c.Size < header.Size && c.Producers > header.CompactMaxProducers {
		d.errorf(p+".producers", "payloads under %dB carry the %d-byte compact header, which numbers at most %d producers",
			header.Size, header.CompactSize, header.CompactMaxProducers)
	}
	c.Batch = d.intIn(p+".batch", rc.Batch, w.Batch, 1, maxBatch)
	c.Warmup = d.durIn(p+".warmup", rc.Warmup, w.Warmup, 0, 0)
	if c.Stages == nil && !d.set(p+".steps") && !replaying {
		c.Duration = d.durIn(p+".duration", rc.Duration, w.Duration, minDuration, 0)
	}
	if replaying && d.usable(p+".replay") {
		var dur time.Duration
		if d.set(p+".duration") || w.Duration > 0 {
			dur = d.durIn(p+".duration", rc.Duration, w.Duration, minDuration, 0)
		}
		d.replayCell(&c, &rc.Replay, p, dur)
	}
	if d.set(p + ".burst") {
		if c.Max {
			d.errorf(p+".burst", "applies to a fixed rate (rate: max has no schedule to burst)")
		} else {
			d.profileKeys(p, "burst", "messages", "backlog")
			if d.usable(p+".burst") && c.Stages == nil {
				d.burst(&c, &rc.Burst, p)
			}
		}
	}
	if d.set(p+".messages") && !c.Max && c.Stages == nil {
		c.Duration = d.messages(p, rc.Messages, c.Rate)
		c.Messages = rc.Messages
	}
	c.Drain = d.durIn(p+".drain", rc.Drain, w.Drain, 0, maxDrain)
	c.VUs = d.intIn(p+".vus", rc.VUs, w.VUs, 0, maxVUs)
	c.MaxVUs = d.intIn(p+".max_vus", rc.MaxVUs, w.MaxVUs, 0, maxVUs)
	if !c.Max && (d.set(p+".vus") || d.set(p+".max_vus")) {
		d.vusPair(p, c.VUs, c.MaxVUs) // the pair as the cell sees it, half may be inherited
	}
	c.ConsumerRate = d.consumerRate(p+".consumer_rate", rc.ConsumerRate, w.ConsumerRate)
	d.closedLoop(&c, rc, p, last)
	c.Backlog = rc.Backlog
	c.Thresholds = d.thresholds(&rc.Thresholds, p+".thresholds")
	return c
}

// vusPair checks that max_vus leaves room above vus when both are given (0 = derived).
func (d *decoder) vusPair(p string, vus, maxv int) {
	if vus > maxVUs || maxv > maxVUs || d.bad[p+".vus"] || d.bad[p+".max_vus"] {
		return // already reported
	}
	if vus > 0 && maxv > 0 && maxv < vus {
		at := p + ".max_vus"
		if !d.set(at) {
			at = p + ".vus"
		}
		d.errorf(at, "max_vus (%d) must be >= vus (%d)", maxv, vus)
	}
}

// messages turns a cell's message count into its measured duration at the cell's rate.
func (d *decoder) messages(p string, n, rate int) time.Duration {
	path := p + ".messages"
	switch {
	case !d.usable(path):
		return 0
	case d.set(p + ".duration"):
		d.errorf(path, "set duration or messages, not both (messages gives duration = messages / rate)")
	case n < 1 || n > maxMessages:
		d.errorf(path, "must be between 1 and %d, got %d", maxMessages, n)
	case rate < 1:
		// the rate problem is reported on its own line
	default:
		dur := time.Duration(math.Ceil(float64(n)*1e3/float64(rate))) * time.Millisecond
		if dur < minDuration {
			d.errorf(path, "%d messages at %d/s last %v, less than the %v minimum", n, rate, dur, minDuration)
			return 0
		}
		return dur
	}
	return 0
}

// everyCellTimed reports whether each of the n cells sets its own duration, messages or
// stages, so the workload needs no default duration.
func everyCellTimed(d *decoder, n int) bool {
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("matrix[%d]", i)
		if !d.set(p+".duration") && !d.set(p+".messages") && !d.set(p+".stages") && !d.set(p+".steps") && !d.set(p+".replay") {
			return false
		}
	}
	return n > 0
}
