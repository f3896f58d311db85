package runner

import (
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/payload"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/scenario"
)

// bodySpec is what the scenario's bodies hold.
func bodySpec(sc *scenario.Scenario) payload.Spec {
	pl := sc.Workload.Payload
	return payload.Spec{Content: pl.Content, File: pl.File, Compressibility: pl.Compressibility}
}

// newMix is the body source of cell c's size mix.
func newMix(sc *scenario.Scenario, c scenario.Cell) (*payload.Mix, error) {
	var sizes, weights []int
	for _, m := range c.Mix {
		sizes, weights = append(sizes, m.Size), append(weights, m.Weight)
	}
	return payload.NewMix(bodySpec(sc), sizes, weights)
}

// sizeClasses are a size mix's measurements per size: messages sent and received, and the
// latency distributions, each message counted in the class of its length.
type sizeClasses struct {
	shares  []scenario.SizeShare
	byBytes map[int]*sizeClass // read-only after newSizeClasses
}

type sizeClass struct {
	sent, received atomic.Uint64
	latencies
}

// latencies are a part of a cell's end-to-end distributions (a size's, a stage's).
type latencies struct{ e2e, e2eIntended *hist.Hist }

func newLatencies() latencies { return latencies{hist.New(), hist.New()} }

// record counts one delivery's end-to-end latency, and its latency from the intended send
// time when the message carried one.
func (l latencies) record(e2e, e2eIntended int64, intended bool) {
	l.e2e.Record(e2e)
	if intended {
		l.e2eIntended.Record(e2eIntended)
	}
}

// newSizeClasses is nil for a cell of one size (or a replay of more than replay.MaxSizes).
func newSizeClasses(c scenario.Cell) *sizeClasses {
	shares := c.Mix
	if rp := c.Replay; rp != nil && rp.Summary.Sizes != nil && rp.Summary.Rows > 0 {
		for size, n := range rp.Summary.Sizes {
			shares = append(shares, scenario.SizeShare{Size: size, Label: strconv.Itoa(size) + "B", Weight: int(n * 10000 / rp.Summary.Rows)})
		}
		sort.Slice(shares, func(i, j int) bool { return shares[i].Size < shares[j].Size })
	}
	if len(shares) == 0 {
		return nil
	}
	s := &sizeClasses{shares: shares, byBytes: map[int]*sizeClass{}}
	for _, m := range shares {
		s.byBytes[m.Size] = &sizeClass{latencies: newLatencies()}
	}
	return s
}

// of is the class of a message of n bytes (nil: a cell of one size, or not one of the mix's).
func (s *sizeClasses) of(n int) *sizeClass {
	if s == nil {
		return nil
	}
	return s.byBytes[n]
}

// report is the mix for summary.json: each size's share, counts and distributions.
func (s *sizeClasses) report() []results.SizeClass {
	if s == nil {
		return nil
	}
	var out []results.SizeClass
	for _, m := range s.shares {
		k := s.byBytes[m.Size]
		out = append(out, results.SizeClass{Size: m.Label, SizeBytes: m.Size, SharePct: float64(m.Weight) / 100,
			Sent: k.sent.Load(), Received: k.received.Load(), E2ELatency: k.e2e.Snapshot(), E2EIntendedLatency: k.e2eIntended.Snapshot()})
	}
	return out
}
