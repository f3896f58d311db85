package amqp10drv

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// management is the little of RabbitMQ's management HTTP API the driver uses: does a queue
// exist in vhost "/", declare a quorum queue, delete it.
type management struct {
	base       string // http://host:port, no trailing slash
	user, pass string
	client     *http.Client
}

func newManagement(base, host, user, pass string) *management {
	if base == "" {
		base = "http://" + net.JoinHostPort(host, "15672")
	}
	return &management{
		base:   strings.TrimRight(base, "/"),
		user:   user,
		pass:   pass,
		client: &http.Client{Timeout: 5 * time.Second},
	}
}

func (m *management) queueURL(queue string) string {
	return m.base + "/api/queues/%2F/" + url.PathEscape(queue)
}

func (m *management) do(ctx context.Context, method, queue string, body string) (int, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, m.queueURL(queue), rd)
	if err != nil {
		return 0, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if m.user != "" {
		req.SetBasicAuth(m.user, m.pass)
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, nil
}

// queueExists: 200 yes, 404 no, anything else an error (no management API, refused).
func (m *management) queueExists(ctx context.Context, queue string) (bool, error) {
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

func (m *management) deleteQueue(ctx context.Context, queue string) error {
	code, err := m.do(ctx, http.MethodDelete, queue, "")
	switch {
	case err != nil:
		return err
	case code == http.StatusNoContent || code == http.StatusOK || code == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("management API %s answered %d", m.base, code)
}

// declareQuorum declares a durable quorum queue (201 created, 204 already there with the
// same arguments; 400 when a queue of that name exists with others).
func (m *management) declareQuorum(ctx context.Context, queue string) error {
	code, err := m.do(ctx, http.MethodPut, queue, `{"durable":true,"auto_delete":false,"arguments":{"x-queue-type":"quorum"}}`)
	switch {
	case err != nil:
		return err
	case code == http.StatusCreated || code == http.StatusNoContent:
		return nil
	}
	return fmt.Errorf("management API %s answered %d", m.base, code)
}
