package natsdrv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

var _ driver.BrokerStats = (*natsDriver)(nil)

// statsHTTP reads the monitoring endpoint; a server that does not answer within it is an
// error for this sample, not a stalled sampler.
var statsHTTP = &http.Client{Timeout: 5 * time.Second}

// BrokerStats reads the server's CPU and memory from its varz (the embedded server's in
// process, an external server's from monitor_url; without monitor_url they are Unknown).
// nats-server computes its cpu itself, over its own one-second window (percent of one core),
// rather than since the previous sample; mem is its resident set. The embedded server runs in
// mqbench's own process, so its CPU and memory include the load generator's.
// In JetStream mode Backlog is the run's durable consumer's num_pending (messages not yet
// delivered) + num_ack_pending (delivered, not acknowledged: the server still holds them and
// sends them again after ack_wait; always 0 with ack none), read through the JetStream API on the admin connection (no monitoring
// port needed). Core NATS keeps nothing for subscribers (what a slow one has not read waits
// in its own client's buffer): Unknown.
func (d *natsDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	var err error
	switch {
	case d.embedded != nil:
		var v *varz
		if v, err = d.embeddedVarz(); err == nil {
			st.CPUPercent, st.MemoryBytes = v.CPU, v.Mem
		}
	case d.opts.MonitorURL != "":
		var v *varz
		if v, err = d.monitorVarz(ctx); err == nil {
			st.CPUPercent, st.MemoryBytes = v.CPU, v.Mem
		}
	}
	if err != nil {
		return st, err
	}
	if d.opts.Mode != "jetstream" {
		return st, nil
	}
	info, err := d.caughtUpConsumerInfo(ctx)
	if err != nil {
		return st, err
	}
	st.Backlog = int64(info.NumPending) + int64(info.NumAckPending)
	return st, nil
}

// caughtUpConsumerInfo reads the run's durable consumer once it has seen every message the
// stream stored. The server tells consumers about stored messages from a goroutine of its
// own, after the publish acknowledgement, so num_pending can lag the stream by the messages
// not yet signalled (295 of 300 seen on a loaded machine, which the ledger would call lost).
// The check needs a stream whose only subject is the destination (the one a run creates);
// a message removed by the stream's limits keeps it from holding, so it is waited for at
// most a second.
func (d *natsDriver) caughtUpConsumerInfo(ctx context.Context) (*jetstream.ConsumerInfo, error) {
	deadline := time.Now().Add(time.Second)
	for {
		var last uint64
		exact := false
		if s, err := d.js.Stream(ctx, d.stream); err == nil {
			si := s.CachedInfo()
			last = si.State.LastSeq
			exact = len(si.Config.Subjects) == 1 && si.Config.Subjects[0] == d.cfg.Destination
		}
		c, err := d.js.Consumer(ctx, d.stream, d.durable)
		if err != nil {
			return nil, fmt.Errorf("nats: consumer %s on stream %s: %w", d.durable, d.stream, err)
		}
		info := c.CachedInfo()
		if !exact || info.Delivered.Stream+info.NumPending >= last || time.Now().After(deadline) {
			return info, nil
		}
		select {
		case <-ctx.Done():
			return info, nil
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// varz is the part of nats-server's /varz that broker stats use.
type varz struct {
	CPU float64 `json:"cpu"` // percent of one core
	Mem int64   `json:"mem"` // resident set, bytes
}

func (d *natsDriver) embeddedVarz() (*varz, error) {
	v, err := d.embedded.srv.Varz(nil)
	if err != nil {
		return nil, fmt.Errorf("nats: embedded server varz: %w", err)
	}
	return &varz{CPU: v.CPU, Mem: v.Mem}, nil
}

func (d *natsDriver) monitorVarz(ctx context.Context) (*varz, error) {
	u := strings.TrimRight(d.opts.MonitorURL, "/") + "/varz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("nats: monitor_url: %w", err)
	}
	resp, err := statsHTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("nats: monitoring endpoint: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("nats: monitoring endpoint %s answered %d", u, resp.StatusCode)
	}
	var v varz
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return nil, fmt.Errorf("nats: monitoring endpoint %s: %w", u, err)
	}
	return &v, nil
}
