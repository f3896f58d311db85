package itest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// The pulsar overload test and its depth read: the subscription's backlog from the broker's
// admin REST API.

// ack_group_time 100 ms: delivered messages are acknowledged in groups, so the backlog still
// counts up to 100 ms of consumer_rate (and the request's round trip).
var pulsarOverload = overloadBroker{"pulsar", "MQBENCH_PULSAR_URL", "pulsar://127.0.0.1:6750", 1000, 400, pulsarDepth, 100, 0}

func TestPulsarOverload(t *testing.T) { k6Binary(t); overloadRun(t, pulsarOverload) }

// pulsarDepth: the msgBacklog of the run's subscription (named after the destination in
// testdata/overload-pulsar.yaml) in the topic's stats, precise (getPreciseBacklog): the messages
// not acknowledged, those pushed to the consumer ahead of the application included. It counts
// entries, and the scenario sends without batching, so an entry is a message. The admin API is
// at the broker port + 1430, as the driver's default admin_url (8180 for scripts/brokers' 6750).
func pulsarDepth(_ context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	host, port, err := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(url, "pulsar://"), "/"))
	p, err2 := strconv.Atoi(port)
	if err != nil || err2 != nil {
		return nil, nil, fmt.Errorf("pulsar url %q: want pulsar://host:port", url)
	}
	stats := fmt.Sprintf("http://%s/admin/v2/persistent/public/default/%s/stats?getPreciseBacklog=true", net.JoinHostPort(host, strconv.Itoa(p+1430)), dest)
	read := func(ctx context.Context) (int64, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, stats, nil)
		if err != nil {
			return 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return 0, fmt.Errorf("GET %s: %s", stats, resp.Status)
		}
		var st struct {
			Subscriptions map[string]struct {
				MsgBacklog int64 `json:"msgBacklog"`
			} `json:"subscriptions"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			return 0, err
		}
		s, ok := st.Subscriptions[dest]
		if !ok {
			return 0, fmt.Errorf("topic %s has no subscription %s", dest, dest)
		}
		return s.MsgBacklog, nil
	}
	return read, func() {}, nil
}
