package aggregate

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

func newHTTPClient(insecure bool) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if insecure {
		tr.TLSClientConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the user asked for it
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

func (o *aggOutput) write(body []byte) error {
	q := url.Values{"db": {o.cfg.db}, "precision": {"ns"}}
	if o.cfg.retention != "" {
		q.Set("rp", o.cfg.retention)
	}
	return o.do(http.MethodPost, "/write", q, bytes.NewReader(body))
}

func (o *aggOutput) query(stmt string) error {
	return o.do(http.MethodPost, "/query", url.Values{"q": {stmt}}, nil)
}

func (o *aggOutput) do(method, path string, q url.Values, body io.Reader) error {
	req, err := http.NewRequest(method, o.cfg.addr+path+"?"+q.Encode(), body)
	if err != nil {
		return err
	}
	req.Header.Set("User-Agent", "k6-"+Name)
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	if o.cfg.user != "" || o.cfg.pass != "" {
		req.SetBasicAuth(o.cfg.user, o.cfg.pass)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
