package merge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/runenv"
	"go.k6.io/k6/v2/lib"
)

// DefaultMaxSkew is how far apart the runners may start a cell. The operator resumes runners
// one after another and each waits out a start slack (5 s by default): beyond that the
// runners' loads overlap only in part, and the sum of their rates is not a rate the broker
// ever saw.
const DefaultMaxSkew = 5 * time.Second

// Invalid is a set of shards that does not make one run: one line per problem, each naming
// the shard(s) it concerns.
type Invalid struct{ Problems []string }

func (e *Invalid) Error() string { return strings.Join(e.Problems, "\n") }

// Check refuses shards that do not make one run; nil when they do. Every problem found is
// listed (a broken set often has several, and one pass should name them all).
func Check(shards []*Shard, maxSkew time.Duration) error {
	var p []string
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	if len(shards) == 0 {
		return &Invalid{[]string{"no shard: no runner-<i>-of-<n>/ folder in the run's folder (the runners wrote none, or this is not a distributed run's folder)"}}
	}
	for _, s := range shards {
		if s.Err != nil {
			add("%s: %v", s.Name, s.Err)
		}
	}
	if len(p) > 0 {
		return &Invalid{p} // what follows reads the manifests and summaries
	}
	if p := checkTrust(shards); len(p) > 0 {
		return &Invalid{p}
	}
	checkIndexes(shards, add)
	checkSegments(shards, add)
	checkIdentity(shards, add)
	checkComplete(shards, add)
	checkSkew(shards, maxSkew, add)
	checkHists(shards, add)
	p = append(p, checkShared(shards)...)
	if len(p) == 0 {
		p = append(p, checkSharedLedgers(shards)...)
	}
	if len(p) > 0 {
		return &Invalid{p}
	}
	return nil
}

// checkIndexes: runners 1..N each once, N the same everywhere, folder names agreeing.
func checkIndexes(shards []*Shard, add func(string, ...any)) {
	n := shards[0].Manifest.Runners
	seen := map[int][]string{}
	for _, s := range shards {
		m := s.Manifest
		switch {
		case m.Runners != n:
			add("%s: says the run has %d runners, %s says %d", s.Name, m.Runners, shards[0].Name, n)
		case m.Runner != s.Index || m.Runners != s.Of:
			add("%s: its shard.json says runner %d of %d (a folder renamed or copied?)", s.Name, m.Runner, m.Runners)
		case m.Runner < 1 || m.Runner > n:
			add("%s: runner %d is outside 1..%d", s.Name, m.Runner, n)
		}
		seen[m.Runner] = append(seen[m.Runner], s.Name)
	}
	for i := 1; i <= n; i++ {
		switch names := seen[i]; {
		case len(names) == 0:
			add("runner %d of %d is missing: no %s/ shard (the runner failed, or its folder is elsewhere)", i, n, runenv.ShardName(i, n))
		case len(names) > 1:
			add("runner %d of %d appears %d times (%s)", i, n, len(names), strings.Join(names, ", "))
		}
	}
}

type span struct {
	from, to *big.Rat
	name     string
	text     string
}

// checkSegments: the k6 execution segments tile [0,1] exactly once, so every tick of every
// arrival-rate executor was fired by exactly one runner.
func checkSegments(shards []*Shard, add func(string, ...any)) {
	var spans []span
	for _, s := range shards {
		var es lib.ExecutionSegment
		// "" is the whole run, as k6 reads a missing --execution-segment.
		if err := es.UnmarshalText([]byte(s.Manifest.Segment)); err != nil {
			add("%s: execution segment (%d bytes) does not parse as from:to (e.g. 0:1/2)", s.Name, len(s.Manifest.Segment))
			continue
		}
		// String is from:to in lowest terms; the segment's bounds are not exported otherwise.
		from, to, _ := strings.Cut(es.String(), ":")
		sp := span{from: new(big.Rat), to: new(big.Rat), name: s.Name, text: es.String()}
		sp.from.SetString(from)
		sp.to.SetString(to)
		spans = append(spans, sp)
	}
	if len(spans) < len(shards) {
		return
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from.Cmp(spans[j].from) < 0 })
	zero, one := new(big.Rat), big.NewRat(1, 1)
	if spans[0].from.Cmp(zero) != 0 {
		add("execution segments start at %s (%s), not 0: the load of 0:%s was run by no runner", spans[0].from.RatString(), spans[0].name, spans[0].from.RatString())
	}
	for i := 1; i < len(spans); i++ {
		a, b := spans[i-1], spans[i]
		switch c := a.to.Cmp(b.from); {
		case c > 0:
			add("execution segments %s (%s) and %s (%s) overlap: part of the load ran twice", a.text, a.name, b.text, b.name)
		case c < 0:
			add("execution segments %s (%s) and %s (%s) leave %s:%s to no runner", a.text, a.name, b.text, b.name, a.to.RatString(), b.from.RatString())
		}
	}
	if last := spans[len(spans)-1]; last.to.Cmp(one) != 0 {
		add("execution segments end at %s (%s), not 1: the load of %s:1 was run by no runner", last.to.RatString(), last.name, last.to.RatString())
	}
}

// checkIdentity: one scenario file, one run, one build.
func checkIdentity(shards []*Shard, add func(string, ...any)) {
	first := shards[0]
	for _, s := range shards {
		m := s.Manifest
		if sum := sha256.Sum256([]byte(m.ScenarioYAML)); hex.EncodeToString(sum[:]) != m.ScenarioSHA256 {
			add("%s: its scenario_yaml does not hash to its scenario_sha256 (an edited shard.json?)", s.Name)
		}
		if s == first {
			continue
		}
		f := first.Manifest
		diff := func(what, got, want string) {
			if got != want {
				add("%s: %s %s differs from %s's %s", s.Name, what, showValue(got), first.Name, showValue(want))
			}
		}
		diff("scenario_sha256 (another scenario file)", m.ScenarioSHA256, f.ScenarioSHA256)
		diff("run_id", m.RunID, f.RunID)
		diff("k6 version", m.Versions.K6, f.Versions.K6)
		diff("mqbench version", m.Versions.Mqbench, f.Versions.Mqbench)
		var ids, fids []string
		for _, c := range s.Run.Cells {
			ids = append(ids, c.ID)
		}
		for _, c := range first.Run.Cells {
			fids = append(fids, c.ID)
		}
		diff("cells", strings.Join(ids, ","), strings.Join(fids, ","))
	}
}

// checkComplete: a stopped runner's share is partial, and summing it in would understate the
// run without saying so.
func checkComplete(shards []*Shard, add func(string, ...any)) {
	for _, s := range shards {
		if s.Run.Complete {
			continue
		}
		var why []string
		for _, c := range s.Run.Cells {
			if c.Status != "complete" {
				why = append(why, c.ID+" "+c.Status)
			}
		}
		add("%s: did not complete (%s): its share of the run is partial", s.Name, strings.Join(why, ", "))
	}
}

// cellStart is when a runner started a cell: the manifest's window, else the summary's.
func cellStart(s *Shard, id string) string {
	for _, c := range s.Manifest.Cells {
		if c.ID == id && c.StartedAt != "" {
			return c.StartedAt
		}
	}
	if c := s.Run.Cell(id); c != nil {
		return c.StartedAt
	}
	return ""
}

// checkSkew: the runners must have run each cell at the same time, or the merged rate is a
// sum of loads that never met the broker together.
func checkSkew(shards []*Shard, maxSkew time.Duration, add func(string, ...any)) {
	for _, c := range shards[0].Run.Cells {
		var lo, hi time.Time
		var loName, hiName string
		for _, s := range shards {
			v := cellStart(s, c.ID)
			if v == "" {
				continue // a cell that never started: checkComplete said so
			}
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				add("%s: cell %s started_at (%d bytes) is not an RFC 3339 time", s.Name, c.ID, len(v))
				continue
			}
			if lo.IsZero() || t.Before(lo) {
				lo, loName = t, s.Name
			}
			if hi.IsZero() || t.After(hi) {
				hi, hiName = t, s.Name
			}
		}
		if d := hi.Sub(lo); d > maxSkew {
			add("cell %s: runners started it %s apart (%s at %s, %s at %s), more than the %s allowed (--max-skew): their loads overlapped only in part",
				c.ID, d.Round(time.Millisecond), loName, lo.Format("15:04:05.000"), hiName, hi.Format("15:04:05.000"), maxSkew)
		}
	}
}

// checkHists: each runner's histogram holds what its summary counted, and the runners'
// geometry keeps every value of the merge (a loss means a foreign or damaged file).
func checkHists(shards []*Shard, add func(string, ...any)) {
	for _, c := range shards[0].Run.Cells {
		for _, kind := range results.Kinds {
			for _, s := range shards {
				sc := s.Run.Cell(c.ID)
				if sc == nil {
					continue // checkIdentity named it
				}
				st, _ := sc.Stats(kind)
				p := s.dists[c.ID][kind]
				switch {
				case p == nil && st.Count > 0:
					add("%s: cell %s %s has %d values but no hdr/ file: its distribution cannot be merged", s.Name, c.ID, kind, st.Count)
				case p != nil && p.TotalCount() != st.Count:
					add("%s: %s holds %d values, its summary.json counts %d", s.Name, results.ShowName(sc.Hdr[kind]), p.TotalCount(), st.Count)
				}
			}
			if _, want, dropped := mergeDists(shards, c.ID, kind); dropped > 0 {
				add("cell %s %s: merging the runners' histograms kept %d of %d values", c.ID, kind, want-dropped, want)
			}
		}
	}
}
