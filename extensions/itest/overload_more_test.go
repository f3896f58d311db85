package itest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/redis/go-redis/v9"
)

// The overload test's depth reads for Redis streams and NSQ.

// redisDepth: the stream's consumer groups' pending entries (read, not acknowledged) plus their
// lag (not read yet), from XINFO GROUPS.
func redisDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, nil, err
	}
	cl := redis.NewClient(opts)
	read := func(ctx context.Context) (int64, error) {
		groups, err := cl.XInfoGroups(ctx, dest).Result()
		if err != nil {
			return 0, err
		}
		if len(groups) == 0 {
			return 0, fmt.Errorf("stream %s has no consumer group", dest)
		}
		var n int64
		for _, g := range groups {
			if g.Lag < 0 {
				return 0, fmt.Errorf("stream %s, group %s: lag unknown", dest, g.Name)
			}
			n += g.Pending + g.Lag
		}
		return n, nil
	}
	return read, func() { _ = cl.Close() }, nil
}

// nsqStatsURL is nsqd's HTTP port (scripts/brokers/nsq.sh's NSQ_HTTP_PORT).
const nsqStatsURL = "http://127.0.0.1:4251/stats?format=json&topic="

// nsqDepth: the topic's channels' depth (memory and disk) plus their in-flight and deferred
// messages, from nsqd's /stats.
func nsqDepth(_ context.Context, _, dest string) (func(context.Context) (int64, error), func(), error) {
	read := func(ctx context.Context) (int64, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, nsqStatsURL+dest, nil)
		if err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		var st struct {
			Topics []struct {
				Name     string `json:"topic_name"`
				Channels []struct {
					Depth    int64 `json:"depth"`
					InFlight int64 `json:"in_flight_count"`
					Deferred int64 `json:"deferred_count"`
				} `json:"channels"`
			} `json:"topics"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return 0, err
		}
		for _, t := range st.Topics {
			if t.Name != dest || len(t.Channels) == 0 {
				continue
			}
			var n int64
			for _, c := range t.Channels {
				n += c.Depth + c.InFlight + c.Deferred
			}
			return n, nil
		}
		return 0, fmt.Errorf("nsqd: no channel on topic %s", dest)
	}
	return read, func() {}, nil
}
