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
// exist in vhost "/", delete it.
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

func (m *management) do(ctx context.Context, method, queue string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, method, m.queueURL(queue), nil)
	if err != nil {
		return 0, err
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
	code, err := m.do(ctx, http.MethodGet, queue)
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
	code, err := m.do(ctx, http.MethodDelete, queue)
	switch {
	case err != nil:
		return err
	case code == http.StatusNoContent || code == http.StatusOK || code == http.StatusNotFound:
		return nil
	}
	return fmt.Errorf("management API %s answered %d", m.base, code)
}
