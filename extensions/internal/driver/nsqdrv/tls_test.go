package nsqdrv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nsqio/go-nsq"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// http_address takes an optional http:// or https:// scheme; the tls block and the auth
// secret reach every connection's go-nsq configuration.
func TestSecurityOptions(t *testing.T) {
	for _, c := range []struct {
		in, scheme, hostPort string
		bad                  bool
	}{
		{"127.0.0.1:4151", "http", "127.0.0.1:4151", false},
		{"https://nsq.example:4152/", "https", "nsq.example:4152", false},
		{"HTTP://h:1", "http", "h:1", false},
		{"ftp://h:1", "", "", true},
	} {
		s, hp, err := splitHTTPAddress(c.in)
		if (err != nil) != c.bad || s != c.scheme || hp != c.hostPort {
			t.Errorf("%q: %q %q %v", c.in, s, hp, err)
		}
	}

	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	if err := os.WriteFile(secretFile, []byte("s3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &Options{TLS: &driver.TLS{ServerName: "nsqd.example"}, AuthSecretFile: secretFile}
	o.Defaults()
	if errs := o.Validate(); len(errs) != 0 {
		t.Fatal(errs)
	}
	tc, secret, err := o.security("127.0.0.1:4150")
	if err != nil || tc == nil || tc.ServerName != "nsqd.example" || secret != "s3" {
		t.Fatalf("security: %+v %q %v", tc, secret, err)
	}
	c := nsq.NewConfig()
	applySecurity(c, tc, secret)
	if !c.TlsV1 || c.TlsConfig == nil || c.TlsConfig.ServerName != "nsqd.example" || c.AuthSecret != "s3" {
		t.Errorf("go-nsq config: tls %v %+v, secret %q", c.TlsV1, c.TlsConfig, c.AuthSecret)
	}
	if hc := httpClient(tc); hc.Transport == nil {
		t.Error("an https API client without the run's TLS configuration")
	}

	// The url's host is the default name; without a block, no TLS.
	o = &Options{TLS: &driver.TLS{}}
	if tc, _, _ := o.security("nsq.example:4150"); tc == nil || tc.ServerName != "nsq.example" {
		t.Errorf("default name: %+v", tc)
	}
	c = nsq.NewConfig()
	applySecurity(c, nil, "")
	if c.TlsV1 || c.AuthSecret != "" {
		t.Errorf("plain: %+v", c)
	}

	for _, bad := range []struct {
		o     Options
		field string
	}{
		{Options{HTTPAddress: "ftp://h:1"}, "http_address"},
		{Options{AuthSecretEnv: "A", AuthSecretFile: secretFile}, "auth_secret_file"},
		{Options{TLS: &driver.TLS{KeyFile: secretFile}}, "tls.cert_file"},
	} {
		b := bad.o
		b.Defaults()
		if errs := b.Validate(); len(errs) != 1 || errs[0].Field != bad.field {
			t.Errorf("%+v: %v, want one error on %s", bad.o, errs, bad.field)
		}
	}
}
