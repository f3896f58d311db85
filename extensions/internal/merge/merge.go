package merge

import (
	"math"
	"sort"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/hist"
	"github.com/mqbench/xk6-mqbench/internal/ledger"
	"github.com/mqbench/xk6-mqbench/internal/results"
)

// Merge adds up shards that passed Check into the whole run's summary (thresholds not yet
// judged: see Judge) and distributions.
//
// Exact: every count, the ledger, the distributions (same HdrHistogram geometry in every
// runner, so merged buckets hold exactly the union's values), their min, max and mean (taken
// from the runners' summaries: a decoded histogram only knows its buckets) and therefore the
// percentiles. Sums of per-runner figures: the rates (each runner measured its share over its
// own window; Check bounded how far apart those windows start), CPU, the timeline (slots are
// seconds since each runner's cell start) and backlog_max (an upper bound, see below).
func Merge(in []*Shard) (results.Summary, results.Hists) {
	shards := append([]*Shard(nil), in...)
	sort.SliceStable(shards, func(i, j int) bool { return shards[i].Manifest.Runner < shards[j].Manifest.Runner })
	first := shards[0].Run
	s := results.Summary{
		Schema: results.Schema, Scenario: first.Scenario, Description: first.Description,
		RunID: shards[0].Manifest.RunID, Broker: first.Broker, Pattern: first.Pattern, Samples: first.Samples, Complete: true,
		// The runners' build (Check refused shards of different mqbench or k6 versions).
		Mqbench: first.Mqbench, K6: first.K6, Go: first.Go, ScenarioSHA256: first.ScenarioSHA256, Pacing: first.Pacing,
	}
	if s.RunID == "" {
		s.RunID = first.RunID
	}
	var finished time.Time
	for _, sh := range shards {
		r := sh.Run
		s.Foreign += r.Foreign
		s.Complete = s.Complete && r.Complete
		// k6's rate aggregation divides by the test run's duration: the longest runner's.
		s.TestRunDurationMs = max(s.TestRunDurationMs, r.TestRunDurationMs)
		if t, err := time.Parse(time.RFC3339Nano, r.FinishedAt); err == nil && t.After(finished) {
			finished, s.FinishedAt = t, r.FinishedAt
		}
		s.Runners = append(s.Runners, runnerOf(sh))
	}
	hs := results.Hists{}
	for _, fc := range first.Cells {
		c, h := mergeCell(fc.ID, shards)
		s.Cells = append(s.Cells, c)
		hs[fc.ID] = h
	}
	if shards[0].Manifest.Shared {
		mergeShared(&s, shards)
	}
	return s, hs
}

// runnerOf is a shard as the merged summary lists it.
func runnerOf(sh *Shard) results.Runner {
	m := sh.Manifest
	r := results.Runner{Runner: m.Runner, Segment: m.Segment, Dir: sh.Name, Host: m.Host,
		Complete: sh.Run.Complete, StartedAt: m.StartedAt}
	for _, c := range sh.Run.Cells {
		r.Cells = append(r.Cells, results.RunnerCell{ID: c.ID, Sent: c.Sent, Received: c.Received,
			SenderRate: c.SenderRate, ReceiverRate: c.ReceiverRate, DroppedIterations: c.DroppedIterations,
			StartedAt: cellStart(sh, c.ID)})
	}
	return r
}

// mergeCell merges one cell across the runners.
func mergeCell(id string, shards []*Shard) (results.Cell, map[string]*hist.Hist) {
	f := shards[0].Run.Cell(id)
	// The cell as the scenario defines it (the same file everywhere, Check made sure);
	// measured fields, files and thresholds are filled below or by Write and Judge.
	c := results.Cell{ID: f.ID, Status: "complete", Size: f.Size, SizeLabel: f.SizeLabel, Header: f.Header,
		Rate: f.Rate, Batch: f.Batch, Producers: f.Producers, Consumers: f.Consumers,
		WarmupS: f.WarmupS, DurationS: f.DurationS, DrainS: f.DrainS, TimelineStepS: f.TimelineStepS,
		Timeline: []results.TimelinePoint{}, Finalized: true}
	var start, end time.Time
	var brokers []*results.BrokerSide
	for _, sh := range shards {
		r := sh.Run.Cell(id)
		if r == nil {
			continue
		}
		brokers = append(brokers, r.Broker)
		if r.Status != "complete" && c.Status == "complete" {
			c.Status = r.Status
		}
		c.Finalized = c.Finalized && r.Finalized
		c.Sent += r.Sent
		c.Acked += r.Acked
		c.PublishErrors += r.PublishErrors
		if c.PublishFirstError == "" {
			c.PublishFirstError = r.PublishFirstError
		}
		c.Received += r.Received
		c.BytesSent += r.BytesSent
		c.BytesReceived += r.BytesReceived
		c.SentWarmup += r.SentWarmup
		c.ReceivedWarmup += r.ReceivedWarmup
		c.K6Skipped += r.K6Skipped
		c.DroppedIterations += r.DroppedIterations
		// Each runner has its own destination and samples its own backlog; their peaks need
		// not coincide, so the sum is an upper bound of the run's backlog, not a measurement.
		c.BacklogMax += r.BacklogMax
		c.SenderRate += r.SenderRate
		c.AckRate += r.AckRate
		c.ReceiverRate += r.ReceiverRate
		c.SenderBytesRate += r.SenderBytesRate
		c.ReceiverBytesRate += r.ReceiverBytesRate
		c.GeneratorCPUS += r.GeneratorCPUS
		c.Ledger = addTally(c.Ledger, r.Ledger)
		for i, p := range r.Timeline {
			if i == len(c.Timeline) {
				c.Timeline = append(c.Timeline, results.TimelinePoint{T: p.T})
			}
			c.Timeline[i].Sent += p.Sent
			c.Timeline[i].Received += p.Received
		}
		if t, err := time.Parse(time.RFC3339Nano, cellStart(sh, id)); err == nil && (start.IsZero() || t.Before(start)) {
			start, c.StartedAt = t, cellStart(sh, id)
		}
		if t, err := time.Parse(time.RFC3339Nano, r.EndedAt); err == nil && t.After(end) {
			end, c.EndedAt = t, r.EndedAt
		}
	}
	c.Broker = mergeBrokerSide(brokers)
	if c.Sent > 0 && c.GeneratorCPUS > 0 {
		c.CPUPerMessageUS = c.GeneratorCPUS * 1e6 / float64(c.Sent)
	}
	hs := map[string]*hist.Hist{}
	for _, kind := range results.Kinds {
		var parts []hist.Stats
		for _, sh := range shards {
			if r := sh.Run.Cell(id); r != nil {
				if st, _ := r.Stats(kind); st.Count > 0 {
					parts = append(parts, st)
				}
			}
		}
		dense, _, _ := mergeDists(shards, id, kind)
		h := toHist(dense)
		hs[kind] = h
		c.SetStats(kind, exactStats(h, parts))
	}
	return c, hs
}

// exactStats gives the merged histogram the runners' exact min, max and sum (a decoded
// histogram only knows its buckets' bounds, up to 0.1% off), then summarizes it: count and
// percentiles from the merged buckets, never above the exact max, as in a single run
// (hist.Snapshot), so a one-runner merge reproduces the runner's figures and thresholds are
// judged (verdict, through Trend) on the very values the summary shows.
func exactStats(h *hist.Hist, parts []hist.Stats) hist.Stats {
	if h.Count() == 0 || len(parts) == 0 {
		return h.Snapshot()
	}
	lo, hi, sum := parts[0].Min, parts[0].Max, 0.0
	for _, p := range parts {
		lo, hi = math.Min(lo, p.Min), math.Max(hi, p.Max)
		sum += p.Mean * float64(p.Count) * 1e3
	}
	h.SetExact(int64(math.Round(lo*1e3)), int64(math.Round(hi*1e3)), sum)
	st := h.Snapshot()
	if len(parts) == 1 {
		st.Mean = parts[0].Mean // not mean·count/count, which may round differently
	}
	return st
}

// addTally sums two runners' ledgers: with per-runner destinations each runner's messages
// come back to its own consumer, so no message is in two ledgers (a shared destination's
// ledgers are unioned instead: mergeShared).
func addTally(a, b ledger.Tally) ledger.Tally {
	return ledger.Tally{
		Issued: a.Issued + b.Issued, Failed: a.Failed + b.Failed, Unique: a.Unique + b.Unique,
		Lost: a.Lost + b.Lost, Unconfirmed: a.Unconfirmed + b.Unconfirmed, Held: a.Held + b.Held, Duplicated: a.Duplicated + b.Duplicated, Reordered: a.Reordered + b.Reordered,
		Late: a.Late + b.Late, Unknown: a.Unknown + b.Unknown, IssuedAfterClose: a.IssuedAfterClose + b.IssuedAfterClose,
		Unconsumed: a.Unconsumed + b.Unconsumed, Subscriptions: addSubs(a.Subscriptions, b.Subscriptions),
	}
}

// addSubs sums two runners' per-subscription tallies (one runner's list when the other has none).
func addSubs(a, b []ledger.SubTally) []ledger.SubTally {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a) == 0 {
		return nil
	}
	out := append([]ledger.SubTally{}, a...)
	for i, s := range b {
		out[i].Unique += s.Unique
		out[i].Lost += s.Lost
		out[i].Unconfirmed += s.Unconfirmed
		out[i].Held += s.Held
		out[i].Duplicated += s.Duplicated
		out[i].Reordered += s.Reordered
	}
	return out
}
