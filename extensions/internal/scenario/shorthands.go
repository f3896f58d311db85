package scenario

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Two shorthands a profile is often written with, expanded to stages here (summary.json lists
// what they became): a step ladder, and periodic bursts on a constant rate. Jumps between
// levels are stages of no duration, which k6's ramping executor takes as instant.

type rawSteps struct {
	From int           `yaml:"from"`
	To   int           `yaml:"to"`
	Step int           `yaml:"step"`
	Hold time.Duration `yaml:"hold"`
}

type rawBurst struct {
	Every time.Duration `yaml:"every"`
	For   time.Duration `yaml:"for"`
	Rate  yaml.Node     `yaml:"rate"` // messages per second, or a multiple of the cell's: "10x"
}

// maxGeneratedStages bounds what a shorthand expands to (a burst every second of a day is a
// replay, not a profile).
const maxGeneratedStages = 20000

// steps reads `steps: { from, to, step, hold }`: a hold at from, then at each level step by
// step to to (the last one at to), each level hold long, jumping between them; each level is
// a stage named step-<rate>, so a threshold can judge one ({stage: step-4000}).
func (d *decoder) steps(c *Cell, rs *rawSteps, p string) {
	p += ".steps"
	for _, k := range []string{"from", "to", "step", "hold"} {
		if !d.set(p + "." + k) {
			d.missing(p + "." + k)
		}
	}
	from := d.intIn(p+".from", rs.From, 0, 1, maxRate)
	to := d.intIn(p+".to", rs.To, 0, 1, maxRate)
	step := d.intIn(p+".step", rs.Step, 0, 1, maxRate)
	hold := d.durIn(p+".hold", rs.Hold, 0, minDuration, 0)
	if from < 1 || to < 1 || step < 1 || hold < minDuration || from > maxRate || to > maxRate {
		return // reported
	}
	if n := (abs(to-from)+step-1)/step + 1; n > maxStages {
		d.errorf(p+".step", "makes %d levels from %d to %d; at most %d", n, from, to, maxStages)
		return
	}
	dir := 1
	if to < from {
		dir = -1
	}
	c.StartRate = from
	for r := from; ; r += dir * step {
		if (dir > 0 && r > to) || (dir < 0 && r < to) {
			r = to
		}
		if len(c.Stages) > 0 {
			c.Stages = append(c.Stages, Stage{Target: r}) // the jump
		}
		c.Stages = append(c.Stages, Stage{Name: "step-" + strconv.Itoa(r), Target: r, Duration: hold})
		if r == to {
			break
		}
	}
	c.Rate, c.Duration = max(from, to), time.Duration((len(c.Stages)+1)/2)*hold
}

// burst reads `burst: { every, for, rate }` on a cell with a constant rate and a duration: the
// rate holds for every − for, jumps to the burst rate for `for`, jumps back, and so on to the
// cell's end (a last partial period at the base rate). Every burst is a stage named burst, so
// {stage: burst} judges them together.
func (d *decoder) burst(c *Cell, rb *rawBurst, p string) {
	p += ".burst"
	for _, k := range []string{"every", "for", "rate"} {
		if !d.set(p + "." + k) {
			d.missing(p + "." + k)
		}
	}
	every := d.durIn(p+".every", rb.Every, 0, 0, 0)
	dur := d.durIn(p+".for", rb.For, 0, 0, 0)
	switch {
	case d.usable(p+".for") && dur < 100*time.Millisecond:
		d.errorf(p+".for", "must be at least 100ms, got %s", d.vals[p+".for"].Value)
	case d.usable(p+".every") && d.usable(p+".for") && every <= dur:
		d.errorf(p+".every", "must be longer than for (%s), got %s", fmtDuration(dur), d.vals[p+".every"].Value)
	}
	rate := 0
	if d.usable(p + ".rate") {
		var msg string
		if rate, msg = burstRate(&rb.Rate, c.Rate); msg != "" {
			d.errorf(p+".rate", "%s", msg)
		}
	}
	if c.Rate < 1 || rate < 1 || every <= dur || dur < 100*time.Millisecond || c.Duration < minDuration {
		return
	}
	n := int(c.Duration / every)
	switch {
	case n == 0:
		d.errorf(p+".every", "no burst fits the cell's %s (every %s)", fmtDuration(c.Duration), fmtDuration(every))
		return
	case 4*n+1 > maxGeneratedStages:
		d.errorf(p+".every", "makes %d bursts in the cell's %s; at most %d", n, fmtDuration(c.Duration), maxGeneratedStages/4)
		return
	}
	base := c.Rate
	c.StartRate = base
	for i := 0; i < n; i++ {
		c.Stages = append(c.Stages, Stage{Target: base, Duration: every - dur}, Stage{Target: rate},
			Stage{Name: "burst", Target: rate, Duration: dur}, Stage{Target: base})
	}
	if rest := c.Duration - time.Duration(n)*every; rest > 0 {
		c.Stages = append(c.Stages, Stage{Target: base, Duration: rest})
	}
	c.Rate = max(base, rate)
}

// burstRate reads a burst's rate: messages per second, or a multiple of base ("10x").
func burstRate(n *yaml.Node, base int) (int, string) {
	const want = "expected messages per second (like 20000) or a multiple of the cell's rate (like 10x)"
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Sprintf("%s, got %s", want, describe(n))
	}
	v := n.Value
	if m, ok := strings.CutSuffix(v, "x"); ok && n.ShortTag() == strTag {
		f, err := strconv.ParseFloat(m, 64)
		if err != nil || !(f > 1) || f > maxRate {
			return 0, fmt.Sprintf("%s, got %q (a multiple is above 1)", want, v)
		}
		v = strconv.Itoa(int(f*float64(base) + 0.5))
	} else if n.ShortTag() != intTag {
		return 0, fmt.Sprintf("%s, got %q", want, v)
	}
	r, err := strconv.Atoi(v)
	switch {
	case err != nil || r < 1:
		return 0, fmt.Sprintf("%s, got %s", want, n.Value)
	case r > maxRate:
		return 0, fmt.Sprintf("%s is %d messages per second, above the limit of %d", n.Value, r, maxRate)
	}
	return r, ""
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
