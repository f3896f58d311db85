package results

// BrokerSide is the broker's own view of a cell (summary.json cells[].broker_side), sampled
// about once a second from the driver while the cell ran (warm-up and drain included):
// the backlog the broker holds for the run's consumers, the broker process's CPU and
// resident memory. Absent when the driver cannot read the broker's side. A field the broker
// does not expose in the run's configuration is absent from the points and null in the
// maxima.
type BrokerSide struct {
	// StepS is the width of a point in seconds: 1, wider for very long cells (a point then
	// holds the highest value of its slot).
	StepS  float64       `json:"step_s"`
	Points []BrokerPoint `json:"points"`
	// The highest value of every sample (nil: never known).
	BacklogMax     *int64   `json:"backlog_max"`
	CPUPercentMax  *float64 `json:"cpu_percent_max"`
	MemoryBytesMax *int64   `json:"memory_bytes_max"`
	// Samples is how many times the broker was asked; Errors how many of those failed (what
	// the sample could still read is kept), FirstError the first failure's text.
	Samples    uint64 `json:"samples"`
	Errors     uint64 `json:"errors"`
	FirstError string `json:"first_error,omitempty"`
}

// BrokerPoint is the broker's side in [T, T+step) seconds after the cell started; fields the
// broker did not expose are absent. ClientBacklog is mqbench's own backlog (acknowledged −
// received) at the same moment, to set beside the broker's.
type BrokerPoint struct {
	T             float64  `json:"t"`
	Backlog       *int64   `json:"backlog,omitempty"`
	CPUPercent    *float64 `json:"cpu_percent,omitempty"`
	MemoryBytes   *int64   `json:"memory_bytes,omitempty"`
	ClientBacklog *int64   `json:"client_backlog,omitempty"`
}

// Known reports whether any sample read anything.
func (b *BrokerSide) Known() bool {
	return b != nil && (b.BacklogMax != nil || b.CPUPercentMax != nil || b.MemoryBytesMax != nil)
}
