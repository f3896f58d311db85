package runner

import (
	"bytes"
	"github.com/mqbench/xk6-mqbench/internal/header"
	"os"
	"path/filepath"

	"github.com/mqbench/xk6-mqbench/internal/hist"
)

// Report is the run's measurement as it goes into summary.json (latencies in µs).
type Report struct {
	Scenario    string       `json:"scenario"`
	Description string       `json:"description,omitempty"`
	RunID       string       `json:"run_id"`
	Broker      BrokerReport `json:"broker"`
	Foreign     uint64       `json:"foreign_messages"`
	// Complete is false when the run was stopped (signal, abort) before every cell ended.
	Complete bool         `json:"complete"`
	Cells    []CellReport `json:"cells"`
}

// BrokerReport names the broker without credentials.
type BrokerReport struct {
	Type    string `json:"type"`
	URL     string `json:"url"`
	AckMode string `json:"ack_mode"`
}

// CellReport is one cell. Counts exclude the warm-up except the *_warmup fields.
type CellReport struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // complete | interrupted | not started
	Size      int    `json:"size_bytes"`
	SizeLabel string `json:"size"`
	// Header is "full" (36 bytes) or "compact" (12 bytes, for payloads under 36 B: no run
	// id, no intended time, send time in µs).
	Header    string  `json:"header"`
	Rate      int     `json:"rate"`
	Batch     int     `json:"batch"`
	Producers int     `json:"producers"`
	Consumers int     `json:"consumers"`
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	DrainS    float64 `json:"drain_s"`

	Sent           uint64 `json:"sent"`
	Acked          uint64 `json:"acked"`
	PublishErrors  uint64 `json:"publish_errors"`
	Received       uint64 `json:"received"`
	BytesSent      uint64 `json:"bytes_sent"`
	BytesReceived  uint64 `json:"bytes_received"`
	SentWarmup     uint64 `json:"sent_warmup"`
	ReceivedWarmup uint64 `json:"received_warmup"`
	K6Skipped      uint64 `json:"k6_samples_skipped"`
	BacklogMax     int64  `json:"backlog_max"`

	SenderRate        float64 `json:"sender_rate"`
	AckRate           float64 `json:"ack_rate"`
	ReceiverRate      float64 `json:"receiver_rate"`
	SenderBytesRate   float64 `json:"sender_bytes_per_s"`
	ReceiverBytesRate float64 `json:"receiver_bytes_per_s"`

	// GeneratorCPUS is the k6 process's CPU time from the first measured send to the end of
	// the drain (includes an embedded broker when url is embedded).
	GeneratorCPUS   float64 `json:"generator_cpu_s"`
	CPUPerMessageUS float64 `json:"cpu_per_message_us"`

	Ledger    Tally `json:"ledger"`
	Finalized bool  `json:"ledger_final"`

	PublishLatency     hist.Stats `json:"publish_latency_us"`
	E2ELatency         hist.Stats `json:"e2e_latency_us"`
	E2EIntendedLatency hist.Stats `json:"e2e_intended_latency_us"`
	ScheduleLag        hist.Stats `json:"schedule_lag_us"`

	// Timeline: messages sent and received per TimelineStepS seconds since the cell's start
	// (warm-up and drain included), for throughput-over-time charts.
	TimelineStepS float64         `json:"timeline_step_s"`
	Timeline      []TimelinePoint `json:"timeline"`
}

// Report snapshots every cell now. Cells never finalized (an aborted run) carry the ledger as
// it stands, marked ledger_final=false.
func (r *Runner) Report() Report {
	rep := Report{
		Scenario: r.sc.Name, Description: r.sc.Description,
		RunID:    r.RunIDString(),
		Broker:   BrokerReport{Type: r.sc.Broker.Type, URL: RedactURL(r.sc.Broker.URL), AckMode: string(r.ackMode)},
		Foreign:  r.foreign.Load(),
		Complete: true,
	}
	for _, c := range r.cells {
		k := c.cell
		cr := CellReport{
			ID: k.ID, Size: k.Size, SizeLabel: k.SizeLabel, Header: headerKind(k.Size), Rate: k.Rate, Batch: k.Batch,
			Producers: k.Producers, Consumers: k.Consumers,
			WarmupS: k.Warmup.Seconds(), DurationS: k.Duration.Seconds(), DrainS: k.Drain.Seconds(),
			Sent: c.sent.Load(), Acked: c.acked.Load(), PublishErrors: c.errors.Load(),
			Received: c.received.Load(), BytesSent: c.bytesSent.Load(), BytesReceived: c.bytesReceived.Load(),
			SentWarmup: c.warmupSent.Load(), ReceivedWarmup: c.warmupRecvd.Load(), BacklogMax: c.backlogMax.Load(),
			PublishLatency: c.publish.Snapshot(), E2ELatency: c.e2e.Snapshot(),
			E2EIntendedLatency: c.e2eIntended.Snapshot(), ScheduleLag: c.lag.Snapshot(),
		}
		cr.TimelineStepS, cr.Timeline = c.tl.points()
		cr.SenderRate = c.sendWin.rate(cr.Sent, k.Duration)
		cr.AckRate = c.sendWin.rate(cr.Acked, k.Duration)
		cr.ReceiverRate = c.recvWin.rate(cr.Received, k.Duration)
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
		c.mu.Lock()
		cr.K6Skipped = c.k6Skipped
		switch {
		case c.final != nil && !c.interrupted:
			cr.Status = "complete"
		case c.final == nil && c.ledger.Tally().Issued == 0:
			cr.Status = "not started"
		default:
			cr.Status = "interrupted"
		}
		if c.final != nil {
			cr.Ledger, cr.Finalized = *c.final, !c.interrupted
		}
		c.mu.Unlock()
		rep.Complete = rep.Complete && cr.Status == "complete"
		if !cr.Finalized {
			cr.Ledger = c.ledger.Tally()
		}
		rep.Cells = append(rep.Cells, cr)
	}
	return rep
}

// WriteHgrm keeps every cell's full latency distributions on disk as HdrHistogram percentile
// files, dir/<cell>.<kind>.hgrm (kind: publish, e2e, e2e_intended, schedule_lag; values in
// µs), skipping empty ones. It returns, by cell id and kind, the file name and the rows as
// [quantile, µs] pairs (the final 100% row left out) for charts.
func (r *Runner) WriteHgrm(dir string) (map[string]map[string]any, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := map[string]map[string]any{}
	for _, c := range r.cells {
		out[c.cell.ID] = map[string]any{}
		for _, k := range []struct {
			kind string
			h    *hist.Hist
		}{{"publish", c.publish}, {"e2e", c.e2e}, {"e2e_intended", c.e2eIntended}, {"schedule_lag", c.lag}} {
			var b bytes.Buffer
			if err := k.h.WriteHgrm(&b); err != nil {
				return nil, err
			}
			d, err := hist.ParseHgrm(bytes.NewReader(b.Bytes()))
			if err != nil || d.TotalCount == 0 {
				continue
			}
			name := c.cell.ID + "." + k.kind + ".hgrm"
			if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
				return nil, err
			}
			pts := make([][]float64, 0, len(d.Points))
			for _, p := range d.Points {
				if p.Q < 1 {
					pts = append(pts, []float64{p.Q, p.Value})
				}
			}
			out[c.cell.ID][k.kind] = map[string]any{"file": name, "points": pts}
		}
	}
	return out, nil
}

func headerKind(size int) string {
	if size < header.Size {
		return "compact"
	}
	return "full"
}
