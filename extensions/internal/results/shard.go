package results

// A distributed run (k6 execution segments: the k6-operator, or `make distributed` on one
// machine) leaves one shard per runner: a complete results folder of that runner's share,
// plus shard.json. `k6 x mqbench merge` checks the shards belong together and merges them
// into the run's one verdict.
//
// Layout: <MQ_RESULTS>/<scenario>/<run id>/runner-<i>-of-<n>/{shard.json, summary.json, hdr/, …};
// the merge writes the merged results into <MQ_RESULTS>/<scenario>/<run id>/.

import "github.com/mqbench/xk6-mqbench/internal/ledger"

// ShardFile is the manifest's name inside a runner's folder.
const ShardFile = "shard.json"

// ShardKind marks a shard manifest.
const ShardKind = "mqbench-shard"

// Shard is shard.json.
type Shard struct {
	Kind    string `json:"kind"`    // ShardKind
	Version int    `json:"version"` // 1
	// Scenario is the scenario's name, ScenarioSHA256 the hash of its file's bytes and
	// ScenarioYAML the bytes themselves: the merge judges the scenario's thresholds, and
	// refuses shards of different files.
	Scenario       string `json:"scenario"`
	ScenarioSHA256 string `json:"scenario_sha256"`
	ScenarioYAML   string `json:"scenario_yaml"`
	// RunID is the distributed run's id (MQ_RUN_ID), the same for every runner.
	RunID string `json:"run_id"`
	// Runner is this runner's 1-based position among Runners, Segment and Sequence k6's
	// execution segment ("1/3:2/3") and sequence ("0,1/3,2/3,1").
	Runner   int    `json:"runner"`
	Runners  int    `json:"runners"`
	Segment  string `json:"segment"`
	Sequence string `json:"sequence"`
	// Destination is the runner's own destination (partitioned mode: derived from the
	// scenario's, so each message is produced and received in one process, on one clock).
	Destination string `json:"destination"`
	Versions    struct {
		K6      string `json:"k6"`
		Mqbench string `json:"mqbench"`
		Go      string `json:"go"`
	} `json:"versions"`
	Host string `json:"host"`
	// StartedAt is when this runner's test run started (its setup, right after the resume),
	// FinishedAt when it wrote the shard; UTC, RFC 3339 with ns.
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	// Cells: each cell's first send and end of drain on this runner (UTC), for the merge's
	// start-skew check and its rate windows.
	Cells []ShardCell `json:"cells"`
	// A shared destination (version 2): the runner's role (produce, consume or both), each
	// cell's ledger record for the merge to union, and the runner's clock.
	Shared  bool                     `json:"shared,omitempty"`
	Role    string                   `json:"role,omitempty"`
	Ledgers map[string]ledger.Record `json:"ledgers,omitempty"`
	Clock   *ShardClock              `json:"clock,omitempty"`
}

// ShardCell is one cell's window on one runner.
type ShardCell struct {
	ID        string `json:"id"`
	StartedAt string `json:"started_at"` // "" if the cell never started
	EndedAt   string `json:"ended_at"`
}

// Runner is one runner as the merged summary.json lists it (Summary.Runners).
type Runner struct {
	Runner    int    `json:"runner"`
	Segment   string `json:"segment"`
	Dir       string `json:"dir"` // the shard, relative to the merged folder
	Host      string `json:"host"`
	Complete  bool   `json:"complete"`
	StartedAt string `json:"started_at"`
	// Per cell: what this runner sent and received and its rates (its share of the cell's).
	Cells []RunnerCell `json:"cells"`
}

// RunnerCell is one runner's part of a cell.
type RunnerCell struct {
	ID                string  `json:"id"`
	Sent              uint64  `json:"sent"`
	Received          uint64  `json:"received"`
	SenderRate        float64 `json:"sender_rate"`
	ReceiverRate      float64 `json:"receiver_rate"`
	DroppedIterations int64   `json:"dropped_iterations"`
	StartedAt         string  `json:"started_at"`
}
