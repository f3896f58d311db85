// Package mergetest writes distributed-run shards for tests: a runner's results folder as
// report.Write leaves it, with real histograms, plus the shard.json a runner writes.
package mergetest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/report"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// YAML is a scenario whose thresholds the tests judge: one cell c1, e2e p(99) under 10 ms.
const YAML = `name: merge-test
broker: { type: nats, url: "nats://127.0.0.1:4222", nats: { mode: core } }
workload: { destination: mqbench.merge, duration: 5s, drain: 1s }
matrix:
  - { size: 1KB, rate: 1000 }
thresholds:
  mq_e2e_latency: ["p(99) < 10ms"]
`

// TwoCells is YAML with a second cell, c2 (a merge refuses cells its scenario lacks).
const TwoCells = `name: merge-test
broker: { type: nats, url: "nats://127.0.0.1:4222", nats: { mode: core } }
workload: { destination: mqbench.merge, duration: 5s, drain: 1s }
matrix:
  - { size: 1KB, rate: 1000 }
  - { size: 1KB, rate: 500 }
thresholds:
  mq_e2e_latency: ["p(99) < 10ms"]
`

// Start is the fixtures' run start.
var Start = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// Cell is one runner's share of a cell.
type Cell struct {
	ID      string
	E2E     []int64 // latencies in ns; publish latencies are recorded as a third of each
	Dropped int64
	Start   time.Time // zero: Start
	Status  string    // "": complete
}

// Runner is runner I of N.
type Runner struct {
	I, N  int
	YAML  string // "": YAML
	Cells []Cell
	// Edit changes the manifest or the summary before they are written (invalid shards).
	Edit func(*results.Shard, *results.Summary)
}

// Summary is the runner's summary and distributions, as its run would report them.
func (r Runner) Summary() (*results.Summary, results.Hists) {
	s := &results.Summary{Schema: results.Schema, Scenario: "merge-test", RunID: "run-1",
		Broker:  results.Broker{Type: "nats", URL: "nats://127.0.0.1:4222", AckMode: "none"},
		Samples: "aggregated", Complete: true, Foreign: uint64(r.I),
		FinishedAt: Start.Add(time.Duration(10+r.I) * time.Second).Format(time.RFC3339Nano), TestRunDurationMs: 9000 + float64(r.I)}
	hs := results.Hists{}
	for _, c := range r.Cells {
		e2e, pub := hist.New(), hist.New()
		for _, v := range c.E2E {
			e2e.Record(v)
			pub.Record(v / 3)
		}
		n := uint64(len(c.E2E))
		start := c.Start
		if start.IsZero() {
			start = Start
		}
		status := c.Status
		if status == "" {
			status = "complete"
		}
		s.Complete = s.Complete && status == "complete"
		empty := hist.New().Snapshot()
		rc := results.Cell{ID: c.ID, Status: status, Size: 1024, SizeLabel: "1KB", Header: "full", Rate: 1000, Batch: 1,
			Producers: 1, Consumers: 1, DurationS: 5, DrainS: 1,
			Sent: n + 1, Acked: n, Received: n, BytesSent: (n + 1) * 1024, BytesReceived: n * 1024,
			SentWarmup: 3, ReceivedWarmup: 3, K6Skipped: 0, BacklogMax: int64(10 * r.I),
			SenderRate: float64(n+1) / 5, AckRate: float64(n) / 5, ReceiverRate: float64(n) / 5.1,
			SenderBytesRate: float64(n+1) * 1024 / 5, ReceiverBytesRate: float64(n) * 1024 / 5.1,
			GeneratorCPUS: 0.25 * float64(r.I), Ledger: ledger.Tally{Issued: n + 1, Unique: n, Failed: 1},
			Finalized: status == "complete", PublishLatency: pub.Snapshot(), E2ELatency: e2e.Snapshot(),
			E2EIntendedLatency: empty, ScheduleLag: empty, TimelineStepS: 1, DroppedIterations: c.Dropped,
			StartedAt: start.Format(time.RFC3339Nano), EndedAt: start.Add(6 * time.Second).Format(time.RFC3339Nano)}
		rc.CPUPerMessageUS = rc.GeneratorCPUS * 1e6 / float64(rc.Sent)
		for i := 0; i < 5+r.I; i++ {
			rc.Timeline = append(rc.Timeline, results.TimelinePoint{T: float64(i), Sent: n / 5, Received: n/5 - uint64(i%2)})
		}
		s.Cells = append(s.Cells, rc)
		hs[c.ID] = map[string]*hist.Hist{"e2e": e2e, "publish": pub}
	}
	return s, hs
}

// Write puts runner r's shard under runDir (runner-<i>-of-<n>/) and returns its folder.
func Write(runDir string, r Runner) (string, error) {
	s, hs := r.Summary()
	yaml := r.YAML
	if yaml == "" {
		yaml = YAML
	}
	m := Manifest(s, r.I, r.N, yaml)
	if r.Edit != nil {
		r.Edit(&m, s)
	}
	return WriteShard(filepath.Join(runDir, runenv.ShardName(r.I, r.N)), m, s, hs)
}

// Manifest is runner i of n's shard.json for summary s of the scenario yaml (one destination
// per runner; a shared run's fields are the caller's to set).
func Manifest(s *results.Summary, i, n int, yaml string) results.Shard {
	sum := sha256.Sum256([]byte(yaml))
	m := results.Shard{Kind: results.ShardKind, Version: 1, Scenario: s.Scenario,
		ScenarioSHA256: hex.EncodeToString(sum[:]), ScenarioYAML: yaml, RunID: "run-1",
		Runner: i, Runners: n, Segment: big.NewRat(int64(i-1), int64(n)).RatString() + ":" + big.NewRat(int64(i), int64(n)).RatString(),
		Destination: fmt.Sprintf("mqbench.merge.r%d", i), Host: fmt.Sprintf("host-%d", i),
		StartedAt: Start.Format(time.RFC3339Nano), FinishedAt: s.FinishedAt}
	seq := make([]string, n+1)
	for k := range seq {
		seq[k] = big.NewRat(int64(k), int64(n)).RatString()
	}
	m.Sequence = strings.Join(seq, ",") // k6's --execution-segment-sequence, as the operator passes it
	m.Versions.K6, m.Versions.Mqbench, m.Versions.Go = "v2.1.0", "v0.9.0", "go1.26"
	for _, c := range s.Cells {
		m.Cells = append(m.Cells, results.ShardCell{ID: c.ID, StartedAt: c.StartedAt, EndedAt: c.EndedAt})
	}
	return m
}

// WriteShard writes a runner's folder dir as the runner does (report.Write, then shard.json
// beside it) and returns it.
func WriteShard(dir string, m results.Shard, s *results.Summary, hs results.Hists) (string, error) {
	if _, err := report.Write(dir, s, hs); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, results.ShardFile), append(b, '\n'), 0o644)
}

// Latencies are n lognormal latencies around 1 ms with a slow tail: exactly slowFrac·n
// (rounded) of them between 50 and 60 ms, shuffled.
func Latencies(rng *rand.Rand, n int, slowFrac float64) []int64 {
	slow := int(math.Round(slowFrac * float64(n)))
	out := make([]int64, n)
	for i := range out {
		if i < slow {
			out[i] = int64((50 + 10*rng.Float64()) * 1e6)
		} else {
			out[i] = int64(math.Exp(rng.NormFloat64()*0.5) * 1e6)
		}
	}
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
