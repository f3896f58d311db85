package mqttdrv

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     Options
		field string // "": valid
	}{
		{"defaults", Options{}, ""},
		{"v311-persistent", Options{Protocol: v311, CleanStart: ptr(false)}, ""},
		{"qos-3", Options{QoS: ptr(3)}, "qos"},
		{"subscribe-qos-negative", Options{SubscribeQoS: ptr(-1)}, "subscribe_qos"},
		{"protocol-4", Options{Protocol: "4"}, "protocol"},
		{"v311-session-expiry", Options{Protocol: v311, SessionExpiry: time.Hour}, "session_expiry"},
		{"v311-message-expiry", Options{Protocol: v311, MessageExpiry: time.Minute}, "message_expiry"},
		{"v311-receive-maximum", Options{Protocol: v311, ReceiveMaximum: 10}, "receive_maximum"},
		{"v5-max-inflight", Options{MaxInflight: 10}, "max_inflight"},
		{"fractional-expiry", Options{MessageExpiry: 1500 * time.Millisecond}, "message_expiry"},
		{"keep-alive-short", Options{KeepAlive: time.Millisecond}, "keep_alive"},
		{"empty-group", Options{SharedGroup: ptr("")}, "shared_group"},
		{"group-with-slash", Options{SharedGroup: ptr("a/b")}, "shared_group"},
		{"group-without-share", Options{SharedGroup: ptr("g"), Share: ptr(false)}, "shared_group"},
		{"prefix-too-long", Options{ClientIDPrefix: strings.Repeat("x", 65447)}, "client_id_prefix"},
		{"connect-timeout", Options{ConnectTimeout: time.Hour}, "connect_timeout"},
		{"secret-twice", Options{PasswordEnv: "A", PasswordFile: "options_test.go"}, "password_file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Defaults()
			errs := o.Validate()
			switch {
			case c.field == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs)
			case c.field != "" && (len(errs) != 1 || errs[0].Field != c.field):
				t.Errorf("got %v, want one error on %s", errs, c.field)
			}
		})
	}
}

// The defaults and what they promise: QoS 1 both ways, a clean start, sharing, 3.1.1's
// in-flight bound, MQTT 5's hour of session for a persistent one.
func TestDefaultsAndCapabilities(t *testing.T) {
	spec, err := driver.Lookup("mqtt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name                            string
		o                               Options
		ack                             driver.AckMode
		promises, holds, stamps, fanout bool
	}{
		{"defaults", Options{}, "PUBACK", true, false, true, true},
		{"qos0", Options{QoS: ptr(0)}, driver.NoAck, false, false, true, true},
		{"qos2-persistent", Options{QoS: ptr(2), CleanStart: ptr(false)}, "PUBCOMP", true, true, true, true},
		{"qos1-subscribe-0", Options{SubscribeQoS: ptr(0), CleanStart: ptr(false)}, "PUBACK", false, false, true, true},
		{"v311", Options{Protocol: v311}, "PUBACK", true, false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := c.o
			o.Defaults()
			if o.AckMode() != c.ack || spec.PromisesDelivery(&o) != c.promises || spec.Holds(&o) != c.holds ||
				spec.HeaderStamp(&o) != c.stamps || spec.FanOut(&o) != c.fanout {
				t.Errorf("ack %s promises %v holds %v stamps %v fanout %v", o.AckMode(), spec.PromisesDelivery(&o), spec.Holds(&o), spec.HeaderStamp(&o), spec.FanOut(&o))
			}
		})
	}
	o := Options{Protocol: v311}
	o.Defaults()
	if o.MaxInflight != 20 || *o.SubscribeQoS != 1 || !*o.CleanStart || o.SessionExpiry != 0 {
		t.Errorf("3.1.1 defaults: %+v", o)
	}
	o = Options{CleanStart: ptr(false), QoS: ptr(2)}
	o.Defaults()
	if o.SessionExpiry != time.Hour || *o.SubscribeQoS != 2 || o.MaxInflight != 0 {
		t.Errorf("MQTT 5 persistent defaults: %+v", o)
	}
}

func TestChecks(t *testing.T) {
	for _, u := range []string{"mqtt://127.0.0.1:1883", "127.0.0.1", "tcp://h:1", "mqtts://u:p@broker.example", "ssl://[::1]:8883"} {
		if err := checkURL(u); err != nil {
			t.Errorf("checkURL(%q): %v", u, err)
		}
	}
	for _, u := range []string{"http://h:1", "mqtt://a:1,mqtt://b:2", "mqtt://h:1/topic", "mqtt://h:99999", "mqtt://h:1?x=1"} {
		if err := checkURL(u); err == nil {
			t.Errorf("checkURL(%q) accepted", u)
		}
	}
	if e, _ := parseURL("mqtts://bench:pw@h"); e.addr != "h:8883" || !e.tls || e.user != "bench" || e.pass != "pw" {
		t.Errorf("parseURL: %+v", e)
	}
	for _, n := range []string{"a", "a/b/c", "/leading", "a//b", "trailing/", "$SYS-like/x", "é/ü", strings.Repeat("x", 65535)} {
		if err := checkTopic(n, nil); err != nil {
			t.Errorf("checkTopic(%q): %v", n, err)
		}
	}
	for _, n := range []string{"", "a/+/b", "a/#", "#", "$share/g/t", "$share", "a\x00b", strings.Repeat("x", 65536), "\xff"} {
		if err := checkTopic(n, nil); err == nil {
			t.Errorf("checkTopic(%.20q) accepted", n)
		}
	}
	if id := clientID("mqbench-", "run.1/ä"+strings.Repeat("r", 80), "s2c5"); len(id) > len("mqbench-")+64+5 || !strings.HasSuffix(id, "-s2c5") || strings.ContainsAny(id, "./ä") {
		t.Errorf("clientID: %q", id)
	}
}

// TestSilentBroker: something that takes the connection and never answers CONNECT is
// reported within the connect timeout, as a refusal (not an unreachable broker), in both
// protocols.
func TestSilentBroker(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent, until the test ends
		}
	}()
	for _, proto := range []string{v5, v311} {
		t.Run("v"+proto, func(t *testing.T) {
			o := opts(proto, 1, func(o *Options) { o.ConnectTimeout = 500 * time.Millisecond })
			began := time.Now()
			_, err := Open(t.Context(), driver.Config{URL: "mqtt://" + l.Addr().String(), Destination: "x", Options: o})
			took := time.Since(began)
			var ue *driver.UnreachableError
			if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), l.Addr().String()) || !strings.Contains(err.Error(), "mqtts://") {
				t.Fatalf("got %v, want a refusal naming the address and mqtts://", err)
			}
			if took > 3*time.Second {
				t.Errorf("took %v with a 500ms connect timeout", took)
			}
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
		})
	}
}
