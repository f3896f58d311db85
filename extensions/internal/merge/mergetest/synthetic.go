package mergetest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
)

// Synthetic is a distributed run at scale, for the merge's size test and benchmark: Runners
// runners of a 5-cell run, each cell at Rate messages per second (the whole run's, split over
// the runners as k6's segments split it) for Duration. Every runner's shard is written by the
// runners' own writers (report.Write, the shard manifest) from a real ledger and real
// histograms, so a shard has the size and format a runner leaves.
type Synthetic struct {
	Runners  int
	Rate     int
	Duration time.Duration
	// Shared: one shared destination (shard.json carries every cell's ledger record, every
	// runner receives some of every runner's messages); else one destination per runner.
	Shared bool
	Seed   uint64
	// Distinct, when set, is how many runners get histograms of their own; the others' folders
	// are copies of those (runner i of runner (i-1) mod Distinct + 1), with their own
	// shard.json: files of the same sizes, written in a fraction of the time (report.Write
	// walks every histogram's 256 KB of buckets several times). A shared run needs every
	// runner's own ledger, so it ignores Distinct.
	Distinct int
}

// SyntheticSizes are the cells' message sizes (the distributed bench section's mix).
var SyntheticSizes = []string{"256B", "1KB", "5KB", "1KB", "64KB"}

// Latency ranges (ns) of the synthetic distributions: log-uniform, so a histogram's values
// spread over several orders of magnitude and thousands of its buckets are non-empty.
const (
	LatencyLo = 20e3  // 20 µs
	LatencyHi = 500e6 // 500 ms
)

// Expected is what the merge must reproduce, counted while the shards were generated.
type Expected struct {
	Sent, Received []uint64           // per cell, summed over the runners
	Counts         []map[string]int64 // per cell, kind → values recorded by all runners
	Ledger         []ledger.Tally     // per cell: issued, unique, lost and duplicated of the whole run
	E2E            []*hist.Hist       // per cell: one histogram of every runner's e2e values
}

// YAML is the synthetic run's scenario.
func (sy Synthetic) YAML() string {
	var b strings.Builder
	b.WriteString("name: merge-scale\n")
	b.WriteString("broker: { type: nats, url: \"nats://127.0.0.1:4222\", nats: { mode: core } }\n")
	fmt.Fprintf(&b, "workload: { destination: mqbench.scale, duration: %ds, drain: 2s }\n", int(sy.Duration.Seconds()))
	if sy.Shared {
		b.WriteString("distributed: { destination: shared }\n")
	}
	b.WriteString("matrix:\n")
	for _, size := range SyntheticSizes {
		fmt.Fprintf(&b, "  - { size: %s, rate: %d }\n", size, sy.Rate)
	}
	b.WriteString("thresholds:\n  mq_e2e_latency: [\"p(99) < 1000ms\"]\n")
	return b.String()
}

// share is runner i's (1-based) part of total, as k6's execution segments i-1/n:i/n give it.
func share(total, i, n int) int { return i*total/n - (i-1)*total/n }

// WriteSynthetic writes every runner's shard of sy under runDir (runner-<i>-of-<n>/).
func WriteSynthetic(runDir string, sy Synthetic) (*Expected, error) {
	n, cells := sy.Runners, len(SyntheticSizes)
	total := sy.Rate * int(sy.Duration.Seconds())
	distinct := sy.Distinct
	if distinct < 1 || distinct > n || sy.Shared {
		distinct = n
	}
	exp := &Expected{Sent: make([]uint64, cells), Received: make([]uint64, cells),
		Counts: make([]map[string]int64, cells), Ledger: make([]ledger.Tally, cells), E2E: make([]*hist.Hist, cells)}
	// ledgers[c][r]: runner r+1's ledger of cell c, received[c][r] what its consumer took,
	// owed[c][r] the tally its messages make (a shared run's: the whole run's, in owed[c][0]).
	ledgers := make([][]*ledger.Ledger, cells)
	received := make([][]int, cells)
	owed := make([][]ledger.Tally, cells)
	for c := range cells {
		ledgers[c], received[c], owed[c] = sy.ledgers(total)
		exp.Counts[c] = map[string]int64{}
		exp.E2E[c] = hist.New()
		if sy.Shared {
			exp.Ledger[c] = owed[c][0]
		}
	}
	yaml := sy.YAML()
	// Each distinct runner's summary and e2e histograms, for the copies.
	sums := make([]*results.Summary, distinct)
	e2e := make([][]*hist.Hist, distinct)
	for i := 1; i <= n; i++ {
		t := (i-1)%distinct + 1
		if t == i {
			s, e, err := sy.writeRunner(runDir, i, total, ledgers, received)
			if err != nil {
				return nil, err
			}
			sums[i-1], e2e[i-1] = s, e
		} else if err := copyRunner(runDir, i, n, t, sums[t-1], yaml); err != nil {
			return nil, err
		}
		for c, rc := range sums[t-1].Cells {
			exp.Sent[c] += rc.Sent
			exp.Received[c] += rc.Received
			for _, kind := range results.Kinds {
				st, _ := rc.Stats(kind)
				exp.Counts[c][kind] += st.Count
			}
			exp.E2E[c].Merge(e2e[t-1][c])
			if !sy.Shared {
				exp.Ledger[c] = addOwed(exp.Ledger[c], owed[c][t-1])
			}
		}
	}
	return exp, nil
}

// writeRunner writes runner i's own shard; it returns its summary and e2e histograms.
func (sy Synthetic) writeRunner(runDir string, i, total int, ledgers [][]*ledger.Ledger, received [][]int) (*results.Summary, []*hist.Hist, error) {
	n := sy.Runners
	rng := rand.New(rand.NewPCG(sy.Seed, uint64(i)))
	s := &results.Summary{Schema: results.Schema, Scenario: "merge-scale", RunID: "run-1",
		Broker:  results.Broker{Type: "nats", URL: "nats://127.0.0.1:4222", AckMode: "none"},
		Samples: "aggregated", Complete: true,
		FinishedAt: Start.Add(sy.Duration + time.Duration(30+i)*time.Millisecond).Format(time.RFC3339Nano), TestRunDurationMs: sy.Duration.Seconds()*1000 + 4000}
	hs := results.Hists{}
	var e2e []*hist.Hist
	var recs map[string]ledger.Record
	for c := range ledgers {
		l := ledgers[c][i-1]
		rc, h := sy.cell(rng, c, uint64(share(total, i, n)), uint64(received[c][i-1]), l.Tally())
		rc.StartedAt = Start.Add(time.Duration(c)*sy.Duration + time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano)
		rc.EndedAt = Start.Add(time.Duration(c+1)*sy.Duration + 2*time.Second).Format(time.RFC3339Nano)
		s.Cells = append(s.Cells, rc)
		hs[rc.ID] = h
		e2e = append(e2e, h["e2e"])
		if sy.Shared {
			if recs == nil {
				recs = map[string]ledger.Record{}
			}
			recs[rc.ID] = l.Record(i)
		}
	}
	m := Manifest(s, i, n, sy.YAML())
	if sy.Shared {
		m.Version, m.Shared, m.Role, m.Ledgers = 2, true, "both", recs
		m.Destination, m.Clock = "mqbench.scale", clock(i, s)
	}
	_, err := WriteShard(filepath.Join(runDir, runenv.ShardName(i, n)), m, s, hs)
	return s, e2e, err
}

// clock is runner i's offset to a reference clock, measured to within 40 to 70 µs around
// every cell, as on hosts of one network.
func clock(i int, s *results.Summary) *results.ShardClock {
	off, unc := int64(i%7-3)*150_000, int64(40_000+i%4*10_000)
	k := &results.ShardClock{Reference: "10.0.0.5:7421", OffsetNS: off, UncertaintyNS: unc}
	for _, c := range s.Cells {
		k.Cells = append(k.Cells, results.CellClock{ID: c.ID, BeforeNS: off, BeforeUncertaintyNS: unc,
			AfterNS: off + 2_000, AfterUncertaintyNS: unc, DriftNS: 2_000, BoundNS: 2*unc + 2_000})
	}
	return k
}

// copyRunner writes runner i's folder as a copy of runner t's (summary t), with its own
// shard.json and summary.json's results_dir.
func copyRunner(runDir string, i, n, t int, s *results.Summary, yaml string) error {
	from, to := filepath.Join(runDir, runenv.ShardName(t, n)), filepath.Join(runDir, runenv.ShardName(i, n))
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if rel == results.ShardFile || rel == "summary.json" {
			return nil
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		// A hard link where the file system has them: the same bytes, without creating and
		// writing thousands of files (the merge only reads them).
		if os.Link(p, dst) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		return err
	})
	if err != nil {
		return err
	}
	cp := *s
	cp.ResultsDir = to
	b, err := json.MarshalIndent(&cp, "", "  ")
	if err == nil {
		err = results.WriteFile(to, "summary.json", append(b, '\n'))
	}
	if err != nil {
		return err
	}
	m := Manifest(&cp, i, n, yaml)
	b, err = json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(to, results.ShardFile), append(b, '\n'), 0o644)
}

// addOwed adds the counts the generator knows by construction.
func addOwed(a, b ledger.Tally) ledger.Tally {
	a.Issued += b.Issued
	a.Unique += b.Unique
	a.Lost += b.Lost
	a.Duplicated += b.Duplicated
	return a
}

// ledgers are one cell's runners' ledgers, frozen, with what each runner's consumer received
// and the tally each runner's messages make, counted here, not by the ledger (a shared run:
// the whole run's, in owed[0]). Every 997th message of each producer is lost and every 1009th
// received twice; with a shared destination a message of producer r and sequence q goes to
// runner (r+q) mod n, and its duplicate to the next runner.
func (sy Synthetic) ledgers(total int) (ls []*ledger.Ledger, recv []int, owed []ledger.Tally) {
	n := sy.Runners
	ls, recv, owed = make([]*ledger.Ledger, n), make([]int, n), make([]ledger.Tally, n)
	for r := range ls {
		ls[r] = ledger.New(1, 1)
		if sy.Shared {
			ls[r].SetShared(n, r+1)
		}
	}
	for r := range n {
		sent := share(total, r+1, n)
		for range sent {
			ls[r].Confirmed(0, ls[r].Issue(0))
		}
		want := &owed[r]
		if sy.Shared {
			want = &owed[0]
		}
		want.Issued += uint64(sent)
		for q := range uint64(sent) {
			if q%997 == 996 {
				want.Lost++
				continue
			}
			want.Unique++
			to := r
			if sy.Shared {
				to = (r + int(q)) % n
			}
			ls[to].ReceiveFrom(r+1, 0, q, 0, 0)
			recv[to]++
			if q%1009 == 0 {
				if sy.Shared {
					to = (to + 1) % n
				}
				ls[to].ReceiveFrom(r+1, 0, q, 0, 0)
				recv[to]++
				want.Duplicated++
			}
		}
	}
	for _, l := range ls {
		l.Freeze()
	}
	return ls, recv, owed
}

// cell is one runner's share of a cell: its summary figures and its four distributions
// (publish and schedule lag per message sent, e2e and intended e2e per message received).
func (sy Synthetic) cell(rng *rand.Rand, c int, sent, recv uint64, t ledger.Tally) (results.Cell, map[string]*hist.Hist) {
	hs := map[string]*hist.Hist{}
	for _, kind := range results.Kinds {
		hs[kind] = hist.New()
	}
	span := math.Log(LatencyHi / LatencyLo)
	logUniform := func() int64 { return int64(LatencyLo * math.Exp(rng.Float64()*span)) }
	for range sent {
		hs["publish"].Record(logUniform() / 10)
		hs["schedule_lag"].Record(logUniform() / 100)
	}
	for range recv {
		v := logUniform()
		hs["e2e"].Record(v)
		hs["e2e_intended"].Record(v + logUniform()/50)
	}
	secs := sy.Duration.Seconds()
	label := SyntheticSizes[c]
	size := map[string]int{"256B": 256, "1KB": 1024, "5KB": 5 << 10, "64KB": 64 << 10}[label]
	rc := results.Cell{ID: fmt.Sprintf("c%d", c+1), Status: "complete", Size: size, SizeLabel: label, Header: "full", Rate: sy.Rate, Batch: 1,
		Producers: 1, Consumers: 1, DurationS: secs, DrainS: 2,
		Sent: sent, Acked: sent, Received: recv, BytesSent: sent * uint64(size), BytesReceived: recv * uint64(size),
		SenderRate: float64(sent) / secs, AckRate: float64(sent) / secs, ReceiverRate: float64(recv) / secs,
		SenderBytesRate: float64(sent) * float64(size) / secs, ReceiverBytesRate: float64(recv) * float64(size) / secs,
		GeneratorCPUS: float64(sent) * 20e-6, Ledger: t, Finalized: true, TimelineStepS: 1,
		PublishLatency: hs["publish"].Snapshot(), E2ELatency: hs["e2e"].Snapshot(),
		E2EIntendedLatency: hs["e2e_intended"].Snapshot(), ScheduleLag: hs["schedule_lag"].Snapshot()}
	rc.CPUPerMessageUS = rc.GeneratorCPUS * 1e6 / float64(max(sent, 1))
	steps := int(secs) + 2
	for k := range steps {
		rc.Timeline = append(rc.Timeline, results.TimelinePoint{T: float64(k),
			Sent: uint64(share(int(sent), k+1, steps)), Received: uint64(share(int(recv), k+1, steps))})
	}
	return rc, hs
}
