package pulsardrv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// errConflict is the admin API's 409: the topic or subscription exists already.
var errConflict = errors.New("exists already")

// errNotFound is the admin API's 404.
var errNotFound = errors.New("not found")

// admin is the broker's admin REST API (/admin/v2).
type admin struct {
	base  string // http://host:port
	http  *http.Client
	token string // sent as a bearer token when set; never printed
}

// call sends one request and returns the body of a 2xx answer; a 409 is errConflict and a
// 404 errNotFound (wrapped with the broker's reason).
func (a *admin) call(ctx context.Context, method, path, body string) ([]byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+"/admin/v2"+path, rd)
	if err != nil {
		return nil, fmt.Errorf("pulsar: %w", err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pulsar: admin %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("pulsar: admin %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 == 2 {
		return b, nil
	}
	reason := strings.TrimSpace(string(b))
	var r struct {
		Reason string `json:"reason"`
	}
	if json.Unmarshal(b, &r) == nil && r.Reason != "" {
		reason = r.Reason
	}
	err = fmt.Errorf("pulsar: admin %s %s: %s: %s", method, path, resp.Status, reason)
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		what := "no token (token_env or token_file)"
		if a.token != "" {
			what = "the token"
		}
		return nil, fmt.Errorf("pulsar: the admin REST API at %s refused %s (authentication): %s %s: %s", a.base, what, method, path, resp.Status)
	case http.StatusConflict:
		return nil, fmt.Errorf("%w (%w)", errConflict, err)
	case http.StatusNotFound:
		return nil, fmt.Errorf("%w (%w)", errNotFound, err)
	}
	return nil, err
}

// partitions returns the topic's partition count (0: non-partitioned, or no such topic).
func (a *admin) partitions(ctx context.Context, t topic) (int, error) {
	b, err := a.call(ctx, http.MethodGet, t.path()+"/partitions", "")
	if err != nil {
		return 0, err
	}
	var m struct {
		Partitions int `json:"partitions"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, fmt.Errorf("pulsar: partitions of %s: %w", t, err)
	}
	return m.Partitions, nil
}

// createTopic creates the topic (partitioned when n > 0); created is false when it existed.
// An existing partitioned topic must have n partitions.
func (a *admin) createTopic(ctx context.Context, t topic, n int) (created bool, err error) {
	if n > 0 {
		_, err = a.call(ctx, http.MethodPut, t.path()+"/partitions", strconv.Itoa(n))
	} else {
		_, err = a.call(ctx, http.MethodPut, t.path(), "")
	}
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, errConflict) {
		return false, err
	}
	have, perr := a.partitions(ctx, t)
	if perr != nil {
		return false, perr
	}
	if have != n {
		return false, fmt.Errorf("pulsar: topic %s exists with %d partitions, the scenario asks for %d (option partitions)", t, have, n)
	}
	return false, nil
}

// deleteTopic deletes the topic (its partitions and subscriptions too), disconnecting any
// producer or consumer still on it.
func (a *admin) deleteTopic(ctx context.Context, t topic, partitioned bool) error {
	p := t.path()
	if partitioned {
		p += "/partitions"
	}
	_, err := a.call(ctx, http.MethodDelete, p+"?force=true", "")
	if errors.Is(err, errNotFound) {
		return nil // gone already (a broker that lost it, or the inactive-topic sweeper)
	}
	return err
}

// createSubscription creates a durable subscription at the end of the topic (messages
// published from now on are kept for it); created is false when it existed.
func (a *admin) createSubscription(ctx context.Context, t topic, sub string) (created bool, err error) {
	_, err = a.call(ctx, http.MethodPut, t.path()+"/subscription/"+sub, "")
	if errors.Is(err, errConflict) {
		return false, nil
	}
	return err == nil, err
}

func (a *admin) deleteSubscription(ctx context.Context, t topic, sub string) error {
	_, err := a.call(ctx, http.MethodDelete, t.path()+"/subscription/"+sub+"?force=true", "")
	if errors.Is(err, errNotFound) {
		return nil
	}
	return err
}

// topicStats is the part of GET .../stats (or .../partitioned-stats: summed over the
// partitions) that mqbench reads.
type topicStats struct {
	Subscriptions map[string]struct {
		MsgBacklog int64 `json:"msgBacklog"`
	} `json:"subscriptions"`
}

// stats reads the topic's stats; errNotFound when there is no such topic.
func (a *admin) stats(ctx context.Context, t topic, partitioned bool) (*topicStats, error) {
	p := t.path() + "/stats"
	if partitioned {
		p = t.path() + "/partitioned-stats"
	}
	b, err := a.call(ctx, http.MethodGet, p, "")
	if err != nil {
		return nil, err
	}
	var s topicStats
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("pulsar: stats of %s: %w", t, err)
	}
	return &s, nil
}
