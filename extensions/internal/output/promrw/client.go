package promrw

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/proto"
)

// pushError is a failed push: refused (HTTP 4xx: the same request would be refused again)
// or not delivered (no answer, HTTP 5xx: worth the next flush).
type pushError struct {
	status  int // 0: no answer
	refused bool
	msg     string
}

func (e *pushError) Error() string { return e.msg }

func newHTTPClient(c config) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if c.insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user's explicit opt-in
	}
	return &http.Client{Timeout: c.timeout, Transport: tr}
}

// push sends one remote write request (protobuf, snappy, version 0.1.0) and returns its size.
func (o *promOutput) push(ctx context.Context, series []*prompb.TimeSeries) (int, error) {
	raw, err := proto.Marshal(&prompb.WriteRequest{Timeseries: series})
	if err != nil {
		return 0, &pushError{refused: true, msg: "encoding the request: " + err.Error()}
	}
	body := snappy.Encode(nil, raw)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.cfg.url, bytes.NewReader(body))
	if err != nil {
		return 0, &pushError{refused: true, msg: err.Error()}
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	if o.cfg.user != "" || o.cfg.pass != "" {
		req.SetBasicAuth(o.cfg.user, o.cfg.pass)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		// The transport's error names the URL (without user info: it is not in cfg.url).
		return 0, &pushError{msg: err.Error()}
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 == 2 {
		return len(body), nil
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(text)), "\n")
	return 0, &pushError{status: resp.StatusCode, refused: resp.StatusCode/100 == 4,
		msg: fmt.Sprintf("%s answered %s: %s", o.cfg.url, resp.Status, line)}
}
