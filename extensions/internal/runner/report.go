package runner

import (
	"path/filepath"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/redact"
	"github.com/mqbench/xk6-mqbench/internal/results"
	"github.com/mqbench/xk6-mqbench/internal/version"
)

// Report snapshots every cell now, as results.Summary (the k6 layer adds thresholds, k6's
// dropped iterations and the run's duration). Cells never finalized (an aborted run) carry
// the ledger as it stands, marked ledger_final=false.
func (r *Runner) Report() results.Summary {
	v := version.Get()
	rep := results.Summary{
		Schema:   results.Schema,
		Scenario: r.sc.Name, Description: r.sc.Description,
		RunID:    r.RunIDString(),
		Broker:   results.Broker{Type: r.sc.Broker.Type, URL: redact.URL(r.sc.Broker.URL), AckMode: string(r.ackMode), Server: r.serverName()},
		Pattern:  r.sc.Workload.Pattern,
		Samples:  r.samplesMode(),
		Foreign:  r.foreign.Load(),
		Complete: true,
		// What made the run: the build, the scenario file's hash, the pacing the sends got.
		Mqbench: v.Mqbench, K6: v.K6, Go: v.Go, ScenarioSHA256: r.sc.SHA256, Pacing: r.pacingMode(),
	}
	for _, c := range r.cells {
		k := c.cell
		_, _, hi, _ := c.backlog.get()
		cr := results.Cell{
			ID: k.ID, Size: k.Size, SizeLabel: k.SizeLabel, Header: headerKind(r.sc.CompactStamp(k.Size)), Rate: k.Rate, Load: results.LoadOpen, Batch: k.Batch,
			Producers: k.Producers, Consumers: k.Consumers,
			WarmupS: k.Warmup.Seconds(), DurationS: k.Duration.Seconds(), DrainS: k.Drain.Seconds(),
			Sent: c.sent.Load(), Acked: c.acked.Load(), PublishErrors: c.errors.Load(), PublishFirstError: r.errText(c.firstSendErr.get()),
			Received: c.received.Load(), BytesSent: c.bytesSent.Load(), BytesReceived: c.bytesReceived.Load(),
			SentWarmup: c.warmupSent.Load(), ReceivedWarmup: c.warmupRecvd.Load(), BacklogMax: hi,
			PublishLatency: c.publish.Snapshot(), E2ELatency: c.e2e.Snapshot(),
			E2EIntendedLatency: c.e2eIntended.Snapshot(), ScheduleLag: c.lag.Snapshot(),
			Hlog: c.hlogPaths(), Broker: c.brokerReport(),
		}
		cr.P95ByMinute = r.minutes(cr.Hlog)
		if len(k.Stages) > 0 {
			cr.StartRate, cr.Stages = k.StartRate, c.stageReport()
		}
		cr.Sizes, cr.Partitions = c.sizes.report(), c.partitions
		cr.Destinations = c.dests.report(r.destinationNames())
		if rp := k.Replay; rp != nil {
			cr.Replay = &results.ReplayInfo{File: rp.Name, Speed: rp.Speed, Loop: rp.Loop, Rows: rp.Summary.Rows}
		}
		if k.Max {
			cr.Load, cr.Inflight = results.LoadClosed, k.Inflight
		}
		cr.BacklogDrain = c.drain.report()
		cr.TimelineStepS, cr.Timeline = c.tl.points()
		for _, e := range r.Faults(c.idx) {
			cr.Faults = append(cr.Faults, results.Fault{Action: e.Action, Asked: e.Asked, Node: e.Node,
				T: (k.Warmup + e.Offset).Seconds(), At: e.At.UTC().Format(time.RFC3339Nano),
				TookS: e.Took.Seconds(), Command: e.Command, Error: e.Err})
		}
		if t := c.startedAt.Load(); t != nil {
			cr.StartedAt = t.UTC().Format(time.RFC3339Nano)
		}
		if t := c.endedAt.Load(); t != nil {
			cr.EndedAt = t.UTC().Format(time.RFC3339Nano)
		}
		// A message-counted closed loop may send in far less than its time limit.
		span := k.Duration
		if k.Max && k.Messages > 0 {
			span = 100 * time.Millisecond
		}
		cr.SenderRate = c.sendWin.rate(cr.Sent, span)
		cr.AckRate = c.sendWin.rate(cr.Acked, span)
		cr.ReceiverRate = c.recvWin.rate(cr.Received, span)
		cr.E2ERate = e2eRate(&c.sendWin, &c.recvWin, cr.Received)
		if cr.Sent > 0 {
			cr.SenderBytesRate = cr.SenderRate * float64(cr.BytesSent) / float64(cr.Sent)
		}
		if cr.Received > 0 {
			cr.ReceiverBytesRate = cr.ReceiverRate * float64(cr.BytesReceived) / float64(cr.Received)
		}
		if start, end := c.cpuStart.Load(), c.cpuEnd.Load(); start > 0 && end > start {
			cr.GeneratorCPUS = float64(end-start) / 1e9
			if cr.Sent > 0 {
				cr.CPUPerMessageUS = cr.GeneratorCPUS * 1e6 / float64(cr.Sent)
			}
		}
		cr.HostStealPct, cr.HostSteal = c.steal()
		// The ledger as it stands: after finalize, the verdict at the close plus what was
		// sent or received since (issued_after_close, late).
		cr.Ledger = c.ledger.Tally()
		c.mu.Lock()
		cr.K6Skipped = c.k6Skipped
		switch {
		case c.final != nil && !c.interrupted:
			cr.Status = "complete"
		case c.final == nil && cr.Ledger.Issued == 0:
			cr.Status = "not started"
		default:
			cr.Status = "interrupted"
		}
		cr.Finalized = c.final != nil && !c.interrupted
		c.mu.Unlock()
		rep.Complete = rep.Complete && cr.Status == "complete"
		rep.Cells = append(rep.Cells, cr)
	}
	return rep
}

func (r *Runner) samplesMode() string {
	if r.raw {
		return "raw"
	}
	return "aggregated"
}

// Hists returns every cell's distributions by cell id and kind, for results.WriteData.
func (r *Runner) Hists() results.Hists {
	out := results.Hists{}
	for _, c := range r.cells {
		out[c.cell.ID] = c.hists()
	}
	return out
}

func headerKind(compact bool) string {
	if compact {
		return "compact"
	}
	return "full"
}

// e2eRate is received messages over the first measured send → the last receipt.
func e2eRate(send, recv *window, n uint64) float64 {
	first, _, ok := send.bounds()
	_, last, ok2 := recv.bounds()
	if !ok || !ok2 || n == 0 || last <= first {
		return 0
	}
	return float64(n) / time.Duration(last-first).Seconds()
}

// serverName is what the broker said it is, "" before Connect or when it did not say.
func (r *Runner) serverName() string {
	if s := r.server.Load(); s != nil {
		return *s
	}
	return ""
}

// minutes reads the cell's interval logs back (flushed every second) for the p95 of each
// minute; a log that cannot be read gives none (HlogError says why it was not written).
func (r *Runner) minutes(hlogs map[string]string) map[string][]results.MinuteStat {
	out := map[string][]results.MinuteStat{}
	for kind, rel := range hlogs {
		m, err := results.MinutesOfHlog(filepath.Join(r.resultsDir, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		if len(m) > 0 {
			out[kind] = m
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// errText is err's text for the results, without the broker URL's credentials ("" for nil).
func (r *Runner) errText(err error) string {
	if err == nil {
		return ""
	}
	return redact.Text(err.Error(), r.sc.Broker.URL)
}
