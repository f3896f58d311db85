package scenario

// The search block: capacity search (OpenMessaging Benchmark's "find maximum sustainable
// rate"). Instead of running each cell at its rate, `k6 x mqbench search` finds per cell the
// highest fixed rate at which every threshold of the cell holds, with no dropped iteration and
// no growing backlog: one k6 run per step (k6 fixes a scenario's arrival rates before the run),
// doubling from the cell's rate, then bisecting, then a confirming run at the rate found.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Defaults of the search block.
const (
	DefaultSearchStep          = 20 * time.Second
	DefaultSearchConfirm       = 60 * time.Second
	DefaultSearchPrecision     = 0.05
	DefaultSearchBacklogGrowth = 0.01
	// maxSearchPrecision: coarser than this is not a search but a guess.
	maxSearchPrecision = 0.5
)

// Search says how `k6 x mqbench search` looks for each cell's highest sustainable rate; the
// cell's rate is where it starts, its thresholds (and the scenario's) the criterion.
type Search struct {
	MaxRate int           // upper bound of every cell's search, messages per second
	Step    time.Duration // measured time of each step (warm-up and drain: the cell's)
	// Precision stops bisecting when (fail - pass) / pass < Precision (a fraction: 0.05 = 5%).
	Precision float64
	// Confirm is the measured time of the confirming run at the rate found.
	Confirm time.Duration
	// BacklogGrowth fails a step whose backlog (sent, not received) when its producers stop
	// exceeds this fraction of the messages it sent.
	BacklogGrowth float64
}

func (d *decoder) search(rs *rawSearch, s *Scenario) *Search {
	const p = "search"
	if !d.set(p) {
		return nil
	}
	sr := &Search{
		MaxRate:       d.intIn(p+".max_rate", rs.MaxRate, 0, 1, maxRate),
		Step:          d.durIn(p+".step", rs.Step, DefaultSearchStep, minDuration, 0),
		Confirm:       d.durIn(p+".confirm", rs.Confirm, DefaultSearchConfirm, minDuration, 0),
		Precision:     d.percent(p+".precision", &rs.Precision, DefaultSearchPrecision),
		BacklogGrowth: d.percent(p+".backlog_growth", &rs.BacklogGrowth, DefaultSearchBacklogGrowth),
	}
	if !d.usable(p) {
		return sr
	}
	if !d.set(p + ".max_rate") {
		d.missing(p + ".max_rate")
	}
	if d.usable(p+".precision") && (sr.Precision <= 0 || sr.Precision > maxSearchPrecision) {
		d.errorf(p+".precision", "must be above 0%% and at most 50%%, got %s", d.vals[p+".precision"].Value)
	}
	if d.usable(p+".backlog_growth") && (sr.BacklogGrowth < 0 || sr.BacklogGrowth > 1) {
		d.errorf(p+".backlog_growth", "must be between 0%% and 100%%, got %s", d.vals[p+".backlog_growth"].Value)
	}
	criterion := len(s.Thresholds) > 0
	for i, c := range s.Cells {
		if c.Duration == 0 && !d.set("workload.duration") && !d.set(fmt.Sprintf("matrix[%d].duration", i)) {
			s.Cells[i].Duration = sr.Step // the scenario run without a search: each cell for one step
		}
		cp := fmt.Sprintf("matrix[%d]", i)
		switch {
		case c.Max:
			d.errorf(cp+".rate", "rate: max does not apply with search: a search runs fixed rates, starting at the cell's rate")
		case d.usable(p+".max_rate") && sr.MaxRate >= 1 && c.Rate > sr.MaxRate:
			d.errorf(cp+".rate", "the search starts at the cell's rate, %d, above search.max_rate (%d)", c.Rate, sr.MaxRate)
		}
		if d.set(cp + ".messages") {
			d.errorf(cp+".messages", "does not apply with search: every step lasts search.step")
		}
		if d.set(cp + ".backlog") {
			d.errorf(cp+".backlog", "does not apply with search: a step's backlog is a criterion, not a load")
		}
		if c.Producers == 0 || (c.Consumers == 0 && s.Workload.Consumers > 0) {
			d.errorf(cp, "producer-only and consume-only cells do not apply with search: each step runs one cell on its own")
		}
		if !criterion && len(c.Thresholds) == 0 && len(s.Cells) > 0 {
			criterion = true // one problem for the whole file is enough
			d.add(d.keys[p], p, "needs a criterion: thresholds (scenario-wide, or on every cell) saying what a sustained rate must meet, like mq_e2e_latency: [\"p(99) < 10ms\"]")
		}
	}
	if d.set("faults") {
		d.add(d.keys["faults"], "faults", "does not combine with search: a node killed in one step would decide where the search stops")
	}
	if d.usable("validity.allow_dropped_iterations") && s.Validity.AllowDroppedIterations {
		d.errorf("validity.allow_dropped_iterations", "must be false with search: a rate the generator cannot hold on schedule was not sustained")
	}
	return sr
}

// percent reads "5%" (or "0.5 %") as a fraction, def when unset; a bare number is refused,
// since 5 and 0.05 would both be read as someone's intent.
func (d *decoder) percent(path string, n *yaml.Node, def float64) float64 {
	if !d.usable(path) {
		return def
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == strTag {
		if num, ok := strings.CutSuffix(strings.TrimSpace(n.Value), "%"); ok {
			if v, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
				return v / 100
			}
		}
	}
	d.errorf(path, "expected a percentage like 5%%, got %s", describe(n))
	d.bad[path] = true
	return def
}
