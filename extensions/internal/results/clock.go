package results

// Clock offsets of a shared-destination distributed run. A message sent by one runner and
// received by another is timed on two clocks; each runner measured its offset to one
// reference clock (clocksync) and stamped every time on the reference, so the merged
// latencies are corrected. What remains is bounded, per runner and cell, by the
// measurement's uncertainty (half its round trip) plus how far the offset moved (drift)
// from the one used for the correction; a cross-runner latency is off by at most the
// producer's bound plus the consumer's.

// ShardClock is one runner's clock in shard.json.
type ShardClock struct {
	// Reference is the reference clock's address; "" when offsets were not measured (taken
	// as 0: runners on one host share its clock).
	Reference string `json:"reference"`
	// TestOnlySkewNS is a clock shift injected for a test (MQ_TEST_ONLY_CLOCK_SKEW): never in a real run.
	TestOnlySkewNS int64 `json:"test_only_skew_ns,omitempty"`
	// OffsetNS is the offset (this runner − reference) the correction used, UncertaintyNS its bound.
	OffsetNS      int64       `json:"offset_ns"`
	UncertaintyNS int64       `json:"uncertainty_ns"`
	Error         string      `json:"error,omitempty"`
	Cells         []CellClock `json:"cells"`
}

// CellClock is one runner's offset around one cell.
type CellClock struct {
	ID string `json:"id"`
	// BeforeNS and AfterNS are the offsets measured last before the cell started and first
	// after it ended, with their uncertainties; DriftNS = after − before.
	BeforeNS            int64 `json:"offset_before_ns"`
	BeforeUncertaintyNS int64 `json:"uncertainty_before_ns"`
	AfterNS             int64 `json:"offset_after_ns"`
	AfterUncertaintyNS  int64 `json:"uncertainty_after_ns"`
	DriftNS             int64 `json:"drift_ns"`
	// BoundNS bounds this runner's residual error during the cell: the correction's
	// uncertainty plus the largest |measured − used| + uncertainty before or after.
	BoundNS int64 `json:"bound_ns"`
}

// RunClock is the merged summary's clock section (Summary.Clock).
type RunClock struct {
	Runners []RunnerClock `json:"runners"`
	// Cells: per cell, the bound on any cross-runner latency (ms): the largest producing
	// runner's bound plus the largest consuming runner's.
	Cells []CellBound `json:"cells"`
}

// RunnerClock is one runner's offset in the merged summary, in ms.
type RunnerClock struct {
	Runner         int     `json:"runner"`
	Role           string  `json:"role"`
	Reference      string  `json:"reference"`
	OffsetMs       float64 `json:"offset_ms"`
	UncertaintyMs  float64 `json:"uncertainty_ms"`
	MaxDriftMs     float64 `json:"max_drift_ms"`
	TestOnlySkewMs float64 `json:"test_only_skew_ms,omitempty"`
}

// CellBound is one cell's latency error bound.
type CellBound struct {
	ID      string  `json:"id"`
	BoundMs float64 `json:"bound_ms"`
	// Measured is false when some runner did not measure its offset: the bound is unknown.
	Measured bool `json:"measured"`
}
