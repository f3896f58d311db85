package mqttdrv

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/driver/drivertest"
)

// TestTLSAndPassword: a private Mosquitto with a TLS listener and a password file. The right
// CA and password pass the conformance suite in both protocols; a wrong password, a wrong CA
// and plain MQTT to the TLS listener are each one line naming the broker, none of them an
// unreachable broker (so exit 113, not 112), the last within the connect timeout; the
// password appears in no message.
func TestTLSAndPassword(t *testing.T) {
	if _, err := exec.LookPath("mosquitto_passwd"); err != nil {
		t.Skip("mosquitto_passwd not installed")
	}
	dir := t.TempDir()
	cert, key, _ := drivertest.SelfSigned(t, dir, "broker", "localhost")
	other, _, _ := drivertest.SelfSigned(t, dir, "other", "localhost")
	const secret = "mqtt-s3cret-never-shown"
	passwd := filepath.Join(dir, "passwd")
	if out, err := exec.Command("mosquitto_passwd", "-c", "-b", passwd, "bench", secret).CombinedOutput(); err != nil {
		t.Fatalf("mosquitto_passwd: %v\n%s", err, out)
	}
	pwFile, badFile := filepath.Join(dir, "pw"), filepath.Join(dir, "bad")
	drivertest.WriteFile(t, pwFile, secret+"\n")
	drivertest.WriteFile(t, badFile, "not-"+secret+"\n")
	m := startMosquitto(t, fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\npassword_file %s", cert, cert, key, passwd))
	tlsURL := strings.Replace(m.url("mqtts"), "mqtts://", "mqtts://bench@", 1)

	for _, proto := range []string{v5, v311} {
		t.Run("ok-v"+proto, func(t *testing.T) {
			o := opts(proto, 1, func(o *Options) {
				o.TLS, o.PasswordFile = &driver.TLS{CAFile: cert, ServerName: "localhost"}, pwFile
			})
			drivertest.RunShared(t, "mqtt", driver.Config{URL: tlsURL, Destination: unique("tls"), Options: o, RunID: runID("tls")})
		})
	}

	for _, c := range []struct {
		name, url string
		mod       func(*Options)
		want      []string
		within    time.Duration
	}{
		{"wrong-password-v5", tlsURL, func(o *Options) { o.TLS, o.PasswordFile = &driver.TLS{CAFile: cert, ServerName: "localhost"}, badFile }, []string{"not authorized", "bench"}, 0},
		{"wrong-password-v311", tlsURL, func(o *Options) {
			o.Protocol, o.TLS, o.PasswordFile = v311, &driver.TLS{CAFile: cert, ServerName: "localhost"}, badFile
		}, []string{"not authorized", "bench"}, 0},
		{"wrong-ca", tlsURL, func(o *Options) { o.TLS, o.PasswordFile = &driver.TLS{CAFile: other, ServerName: "localhost"}, pwFile }, []string{"certificate"}, 0},
		{"plain-to-tls-v5", m.url("mqtt"), func(o *Options) { o.ConnectTimeout = 2 * time.Second }, []string{"mqtts://"}, 4 * time.Second},
		{"plain-to-tls-v311", m.url("mqtt"), func(o *Options) { o.Protocol, o.ConnectTimeout = v311, 2*time.Second }, []string{"mqtts://"}, 5 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := opts(v5, 1, c.mod)
			began := time.Now()
			_, err := Open(t.Context(), driver.Config{URL: c.url, Destination: "mqbench/tls", Options: o, RunID: runID("bad")})
			took := time.Since(began)
			if err == nil {
				t.Fatal("Open succeeded")
			}
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
			msg := err.Error()
			for _, w := range append(c.want, fmt.Sprintf("127.0.0.1:%d", m.port)) {
				if !strings.Contains(msg, w) {
					t.Errorf("error does not say %q", w)
				}
			}
			var ue *driver.UnreachableError
			if errors.As(err, &ue) {
				t.Errorf("an UnreachableError (exit 112); the broker answered, so it refused (113)")
			}
			if strings.Contains(msg, secret) || strings.Contains(msg, "\n") {
				t.Errorf("the error leaks the password or is not one line")
			}
			if c.within > 0 && took > c.within {
				t.Errorf("took %v, want at most %v (the connect timeout, not a hang)", took, c.within)
			}
		})
	}
}
