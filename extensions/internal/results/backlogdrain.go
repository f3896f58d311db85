package results

import (
	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// BacklogDrain is a build-and-drain cell's account (scenario `backlog: N`).
type BacklogDrain struct {
	Target  int64 `json:"target"`  // the backlog asked for
	Reached bool  `json:"reached"` // it built up before the producers stopped
	Peak    int64 `json:"peak"`    // the highest backlog seen while building
	// PausedAtS: when consumers were held back, seconds since the cell started (its
	// warm-up's end); BuildS: how long until they were let go.
	PausedAtS float64 `json:"paused_at_s"`
	BuildS    float64 `json:"build_s"`
	// Drained: the backlog fell back to 1 % of the target (at least 1) before the cell
	// ended, DrainS after the consumers were let go.
	Drained bool    `json:"drained"`
	DrainS  float64 `json:"drain_s"`
	// DrainRate is what the consumers received per second while draining (the producers
	// still sending); NetDrainRate is the peak backlog over DrainS.
	DrainRate    float64 `json:"drain_rate"`
	NetDrainRate float64 `json:"net_drain_rate"`
	// PublishLatency by phase: building, draining, drained (µs).
	PublishLatency map[string]hist.Stats `json:"publish_latency_us"`
}
