package results

import "github.com/mqbench/xk6-mqbench/internal/hist"

// What a cell of a real-traffic shape adds to its summary: a size mix's sizes, a replay's
// recording, a keyed run's partitions, a profile's stages.

// SizeClass is one size of a cell's size mix: its share of the messages, what was sent and
// received at that size (after the warm-up), and their latencies.
type SizeClass struct {
	Size               string     `json:"size"`
	SizeBytes          int        `json:"size_bytes"`
	SharePct           float64    `json:"share_pct"`
	Sent               uint64     `json:"sent"`
	Received           uint64     `json:"received"`
	E2ELatency         hist.Stats `json:"e2e_latency_us"`
	E2EIntendedLatency hist.Stats `json:"e2e_intended_latency_us"`
}

// ReplayInfo names a replay cell's recording: the file as the scenario gave it, the speed,
// whether it looped, and its rows.
type ReplayInfo struct {
	File  string  `json:"file"`
	Speed float64 `json:"speed"`
	Loop  bool    `json:"loop,omitempty"`
	Rows  int64   `json:"rows"`
}

// PartitionCount is one partition's messages during a cell.
type PartitionCount struct {
	Partition int32   `json:"partition"`
	Messages  int64   `json:"messages"`
	SharePct  float64 `json:"share_pct"`
}

// DestinationCount is what one destination's consumers received of a cell's measured
// messages, in a run spread over several destinations.
type DestinationCount struct {
	Destination string  `json:"destination"`
	Received    uint64  `json:"received"`
	SharePct    float64 `json:"share_pct"`
}

// Stage is one stage of a cell's rate profile.
type Stage struct {
	Name      string  `json:"name,omitempty"`
	Target    int     `json:"target"` // messages per second at its end
	DurationS float64 `json:"duration_s"`
	// A named stage's distributions: the messages whose intended send time fell in it.
	E2ELatency         *hist.Stats `json:"e2e_latency_us,omitempty"`
	E2EIntendedLatency *hist.Stats `json:"e2e_intended_latency_us,omitempty"`
	ScheduleLag        *hist.Stats `json:"schedule_lag_us,omitempty"`
}
