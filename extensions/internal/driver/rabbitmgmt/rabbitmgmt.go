// Package rabbitmgmt is the little of RabbitMQ's management HTTP API the drivers use: queue
// facts (exists, type, leader and members, depth), a node's memory, declaring a quorum queue,
// deleting a queue; and, for broker stats, the Erlang VM's CPU time from the Prometheus
// endpoint (rabbitmq_prometheus).
package rabbitmgmt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Client talks to one node's management API, for vhost "/".
type Client struct {
	base       string // http://host:port, no trailing slash
	user, pass string
	client     *http.Client
}

// New returns a client of base (http://host:port; "" for http://host:15672) with the broker
// user's credentials.
func New(base, host, user, pass string) *Client {
	if base == "" {
		base = "http://" + net.JoinHostPort(host, "15672")
	}
	return &Client{
		base:   strings.TrimRight(base, "/"),
		user:   user,
		pass:   pass,
		client: &http.Client{Timeout: 5 * time.Second},
	}
}

func (m *Client) queueURL(queue string) string {
	return m.base + "/api/queues/%2F/" + url.PathEscape(queue)
}

func (m *Client) do(ctx context.Context, method, queue string, body string) (int, error) {
	code, _, err := m.request(ctx, method, queue, body)
	return code, err
}

// request sends one request about queue and returns the status and (at most 1 MB of) body.
func (m *Client) request(ctx context.Context, method, queue string, body string) (int, []byte, error) {
	return m.requestURL(ctx, method, m.queueURL(queue), body)
}

// requestURL sends one request to u (under base) and returns the status and (at most 1 MB
// of) body.
func (m *Client) requestURL(ctx context.Context, method, u string, body string) (int, []byte, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.user != "" {
		req.SetBasicAuth(m.user, m.pass)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, b, err
}

// QueueExists: 200 yes, 404 no, anything else an error (no management API, refused).
func (m *Client) QueueExists(ctx context.Context, queue string) (bool, error) {
	code, err := m.do(ctx, http.MethodGet, queue, "")
	switch {
	case err != nil:
		return false, err
	case code == http.StatusOK:
		return true, nil
	case code == http.StatusNotFound:
		return false, nil
	}
	return false, fmt.Errorf("management API %s answered %d", m.base, code)
}

// DeleteQueue deletes a queue; one that is not there is no error.
func (m *Client) DeleteQueue(ctx context.Context, queue string) error {
	code, err := m.do(ctx, http.MethodDelete, queue, "")
	switch {
	case err != nil:
		return err
	case code == http.StatusNoContent || code == http.StatusOK || code == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("management API %s answered %d", m.base, code)
}

// DeclareQuorum declares a durable quorum queue (201 created, 204 already there with the
// same arguments; 400 when a queue of that name exists with others).
func (m *Client) DeclareQuorum(ctx context.Context, queue string) error {
	code, err := m.do(ctx, http.MethodPut, queue, `{"durable":true,"auto_delete":false,"arguments":{"x-queue-type":"quorum"}}`)
	switch {
	case err != nil:
		return err
	case code == http.StatusCreated || code == http.StatusNoContent:
		return nil
	}
	return fmt.Errorf("management API %s answered %d", m.base, code)
}

// Queue is what the management API says about a queue's placement.
type Queue struct {
	Type    string   `json:"type"`    // classic, quorum, stream
	Node    string   `json:"node"`    // where a classic queue lives (a quorum queue's leader too)
	Leader  string   `json:"leader"`  // quorum and stream queues
	Members []string `json:"members"` // quorum and stream queues: every replica, leader included

	// Message counts, refreshed by the broker every collect_statistics_interval (5 s by
	// default); absent (nil) until the first refresh after the queue was declared.
	MessagesReady          *int64 `json:"messages_ready"`
	MessagesUnacknowledged *int64 `json:"messages_unacknowledged"`
}

// Queue returns the queue's type and placement.
func (m *Client) Queue(ctx context.Context, queue string) (Queue, error) {
	var q Queue
	code, body, err := m.request(ctx, http.MethodGet, queue, "")
	switch {
	case err != nil:
		return q, err
	case code == http.StatusNotFound:
		return q, fmt.Errorf("queue %s does not exist", queue)
	case code != http.StatusOK:
		return q, fmt.Errorf("management API %s answered %d", m.base, code)
	}
	if err := json.Unmarshal(body, &q); err != nil {
		return q, fmt.Errorf("management API %s: %w", m.base, err)
	}
	return q, nil
}

// Placement is the queue's leader (a classic queue's node) and its other members.
func (m *Client) Placement(ctx context.Context, queue string) (leader string, followers []string, err error) {
	q, err := m.Queue(ctx, queue)
	if err != nil {
		return "", nil, err
	}
	leader = q.Leader
	if leader == "" {
		leader = q.Node
	}
	for _, n := range q.Members {
		if n != leader {
			followers = append(followers, n)
		}
	}
	return leader, followers, nil
}
