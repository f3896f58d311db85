package scenario

import (
	"fmt"
	"time"
)

// Stage is one step of a cell's rate profile: the rate goes linearly from the previous
// stage's target (the cell's start_rate before the first) to Target over Duration, as k6's
// ramping-arrival-rate executor runs it; a stage whose target is the previous one holds it.
type Stage struct {
	Name     string        // optional, like a cell's name
	Target   int           // messages per second at the stage's end
	Duration time.Duration // > 0
}

type rawStage struct {
	Name     string        `yaml:"name"`
	Target   int           `yaml:"target"`
	Duration time.Duration `yaml:"duration"`
}

// profileKeys refuses, beside a profile written as key, the keys that describe a constant
// rate or another profile, and a capacity search (it climbs constant rates).
func (d *decoder) profileKeys(p, key string, others ...string) {
	gives := "the cell's rate over time and its duration"
	if key == "replay" {
		gives = "the cell's sizes, keys, rate over time and duration"
	}
	for _, k := range others {
		if k != key && d.set(p+"."+k) {
			d.errorf(p+"."+k, "does not apply beside %s, which gives %s", key, gives)
		}
	}
	if d.set("search") {
		d.errorf(p+"."+key, "a capacity search climbs constant rates; a profile cannot be searched (give the cell a rate)")
	}
}

// maxStages bounds a profile (a typo guard: a stage per second of an hour is a replay).
const maxStages = 100

// stages reads a cell's rate profile (stages and start_rate) in place of its rate: the cell's
// Rate becomes the profile's peak (it sizes the VU pool and the byte-rate bound) and its
// Duration the stages' sum. Keys that describe a constant rate are refused beside it.
func (d *decoder) stages(c *Cell, rc *rawCell, p string) {
	d.profileKeys(p, "stages", "rate", "duration", "messages", "backlog", "steps", "burst")
	if !d.usable(p + ".stages") {
		return
	}
	if len(rc.Stages) == 0 || len(rc.Stages) > maxStages {
		d.errorf(p+".stages", "must list 1 to %d stages ({ target: 2000, duration: 30s }), got %d", maxStages, len(rc.Stages))
		return
	}
	c.StartRate = d.intIn(p+".start_rate", rc.StartRate, 0, 0, maxRate)
	peak, total, names := c.StartRate, time.Duration(0), map[string]string{}
	for i := range rc.Stages {
		sp, rs := fmt.Sprintf("%s.stages[%d]", p, i), &rc.Stages[i]
		if d.bad[sp] {
			continue
		}
		st := Stage{Name: rs.Name, Target: rs.Target, Duration: rs.Duration}
		if !d.set(sp + ".target") {
			d.missing(sp + ".target")
		} else if d.usable(sp+".target") && (rs.Target < 0 || rs.Target > maxRate) {
			d.errorf(sp+".target", "must be between 0 and %d messages per second, got %d", maxRate, rs.Target)
		}
		if !d.set(sp + ".duration") {
			d.missing(sp + ".duration")
		} else if d.usable(sp+".duration") && rs.Duration <= 0 {
			d.errorf(sp+".duration", "must be more than 0 (a jump is a stage of 1s, or a start_rate), got %s", d.vals[sp+".duration"].Value)
		}
		if d.usable(sp + ".name") {
			if !cellNameRE.MatchString(rs.Name) {
				d.errorf(sp+".name", "stage name %q must be 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit", rs.Name)
			} else if first, dup := names[rs.Name]; dup {
				d.errorf(sp+".name", "stage name %q is already used by %s", rs.Name, first)
			}
			names[rs.Name] = sp
		}
		peak, total = max(peak, st.Target), total+max(st.Duration, 0)
		c.Stages = append(c.Stages, st)
	}
	switch {
	case len(c.Stages) < len(rc.Stages): // reported
	case peak < 1:
		d.errorf(p+".stages", "every target is 0: the cell would send nothing")
	case total < minDuration:
		d.errorf(p+".stages", "the stages last %s in all; a cell needs at least %s", fmtDuration(total), fmtDuration(minDuration))
	}
	c.Rate, c.Duration = peak, total
}

// TargetAt is a profile's target rate (messages per second) at offset d from the cell's start:
// the start rate through the warm-up, then each stage's line; the last target after the end.
func (c Cell) TargetAt(d time.Duration) float64 {
	from := float64(c.StartRate)
	if d -= c.Warmup; d < 0 {
		return from
	}
	for _, s := range c.Stages {
		if d < s.Duration {
			return from + (float64(s.Target)-from)*float64(d)/float64(s.Duration)
		}
		d -= s.Duration
		from = float64(s.Target)
	}
	return from
}
