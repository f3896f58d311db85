package nsqdrv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// call sends one request to nsqd's HTTP API and returns the body of a 200 answer.
func (d *nsqDriver) call(ctx context.Context, method, path string, body io.Reader) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, d.api+path, body)
	if err != nil {
		return nil, fmt.Errorf("nsq: %w", err)
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("nsq: %s %s: %w", method, d.api+path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("nsq: %s %s: %w", method, d.api+path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("nsq: %s %s: %s: %s", method, d.api+path, resp.Status, strings.TrimSpace(string(b)))
	}
	return b, nil
}

// stats is the part of GET /stats?format=json that mqbench reads.
type stats struct {
	Topics []struct {
		Name     string `json:"topic_name"`
		Channels []struct {
			Name     string `json:"channel_name"`
			Depth    int64  `json:"depth"`
			InFlight int64  `json:"in_flight_count"`
			Deferred int64  `json:"deferred_count"`
		} `json:"channels"`
	} `json:"topics"`
}

// readStats reads nsqd's stats of the run's topic: of the run's channel only when
// channelOnly (nsqd then leaves out a topic without that channel).
func (d *nsqDriver) readStats(ctx context.Context, channelOnly bool) (*stats, error) {
	q := "/stats?format=json&topic=" + escape(d.cfg.Destination)
	if channelOnly {
		q += "&channel=" + escape(d.channel)
	}
	b, err := d.call(ctx, http.MethodGet, q, nil)
	if err != nil {
		return nil, err
	}
	var s stats
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("nsq: GET /stats: %w", err)
	}
	return &s, nil
}

// exists reports whether the topic and the run's channel exist.
func (d *nsqDriver) exists(ctx context.Context) (topic, channel bool, err error) {
	s, err := d.readStats(ctx, false)
	if err != nil {
		return false, false, err
	}
	for _, t := range s.Topics {
		if t.Name != d.cfg.Destination {
			continue
		}
		topic = true
		for _, c := range t.Channels {
			channel = channel || c.Name == d.channel
		}
	}
	return topic, channel, nil
}

var _ driver.BrokerStats = (*nsqDriver)(nil)

// BrokerStats reads GET /stats: Backlog is the run's channel's depth (memory queue + disk) plus
// its in-flight (sent, not finished) and deferred messages. nsqd reports its Go heap, not the
// process's resident memory, and no CPU time: both stay Unknown.
func (d *nsqDriver) BrokerStats(ctx context.Context) (driver.Stats, error) {
	st := driver.UnknownStats()
	s, err := d.readStats(ctx, true)
	if err != nil {
		return st, err
	}
	for _, t := range s.Topics {
		if t.Name != d.cfg.Destination {
			continue
		}
		for _, c := range t.Channels {
			if c.Name == d.channel {
				st.Backlog = c.Depth + c.InFlight + c.Deferred
			}
		}
	}
	return st, nil
}
