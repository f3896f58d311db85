package runner

import (
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// stageHists are a profile's distributions per named stage, for thresholds filtered by
// stage ({stage: spike}) and summary.json's stages: a message counts in the stage its
// intended send time falls in, so a spike's latency is the latency of what the spike sent.
type stageHists struct {
	names []string        // per stage of the cell ("" unnamed: not kept)
	ends  []time.Duration // each stage's end, from the end of the warm-up
	by    map[string]*stageHist
}

type stageHist struct {
	latencies
	lag *hist.Hist
}

// newStageHists is nil for a cell without a named stage.
func newStageHists(c scenario.Cell) *stageHists {
	s := &stageHists{by: map[string]*stageHist{}}
	var end time.Duration
	for _, st := range c.Stages {
		end += st.Duration
		s.names, s.ends = append(s.names, st.Name), append(s.ends, end)
		if st.Name != "" {
			s.by[st.Name] = &stageHist{newLatencies(), hist.New()}
		}
	}
	if len(s.by) == 0 {
		return nil
	}
	return s
}

// at is the named stage holding offset d from the end of the warm-up (nil: none, or unnamed).
func (s *stageHists) at(d time.Duration) *stageHist {
	if s == nil || d < 0 {
		return nil
	}
	for i, end := range s.ends {
		if d < end {
			return s.by[s.names[i]]
		}
	}
	return nil
}

// stageAt is the named stage of cell c a message intended at run-clock ns intended falls in.
func (c *cellState) stageAt(intended int64) *stageHist {
	if c.stages == nil || intended < 0 {
		return nil
	}
	start, ok := c.profileClock.start() // with the offset as known now
	if !ok {
		return nil
	}
	return c.stages.at(time.Duration(intended-start) - c.cell.Warmup)
}

// StageTrend is a cell's distribution of a time metric over one named stage (nil: no such
// stage, or a metric not kept per stage).
func (r *Runner) StageTrend(cell int, stage, metric string) *hist.Hist {
	c := r.cells[cell]
	if c.stages == nil || c.stages.by[stage] == nil {
		return nil
	}
	h := c.stages.by[stage]
	return trendFor(metric, nil, h.e2e, h.e2eIntended, h.lag)
}

// stageReport is the cell's stages for summary.json, each named one with its distributions.
func (c *cellState) stageReport() []results.Stage {
	var out []results.Stage
	for _, st := range c.cell.Stages {
		rs := results.Stage{Name: st.Name, Target: st.Target, DurationS: st.Duration.Seconds()}
		if h := c.stages.byName(st.Name); h != nil {
			e2e, intended, lag := h.e2e.Snapshot(), h.e2eIntended.Snapshot(), h.lag.Snapshot()
			rs.E2ELatency, rs.E2EIntendedLatency, rs.ScheduleLag = &e2e, &intended, &lag
		}
		out = append(out, rs)
	}
	return out
}

func (s *stageHists) byName(name string) *stageHist {
	if s == nil || name == "" {
		return nil
	}
	return s.by[name]
}
