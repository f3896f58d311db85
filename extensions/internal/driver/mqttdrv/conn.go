package mqttdrv

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// conn is one MQTT connection, whichever client library speaks it (v5.go: paho.golang for
// MQTT 5, v3.go: paho.mqtt.golang for 3.1.1). The rest of the driver only knows this.
type conn interface {
	// publish writes one PUBLISH in call order; its Ack (nil at QoS 0) resolves at the
	// PUBACK (QoS 1) or PUBCOMP (QoS 2).
	publish(ctx context.Context, topic string, m driver.Message) (driver.Ack, error)
	// subscribe sends SUBSCRIBE for filter and waits for the SUBACK.
	subscribe(ctx context.Context, filter string, qos byte) error
	// lost is closed once the connection is gone (broken or disconnected).
	lost() <-chan struct{}
	// disconnect sends DISCONNECT and closes the connection; idempotent.
	disconnect()
}

// params is what one connection is opened with.
type params struct {
	ep        endpoint
	tls       *tls.Config // nil: plain TCP
	clientID  string
	user      string
	pass      string
	hasUser   bool
	hasPass   bool
	clean     bool
	expiry    uint32 // session expiry interval, s (MQTT 5)
	keepAlive uint16 // s
	recvMax   uint16 // 0: not sent (MQTT 5)
	timeout   time.Duration
	qos       byte // publish QoS
	retain    bool
	msgExpiry uint32 // message expiry interval, s; 0: none (MQTT 5)
	inflight  int    // unacknowledged publishes at most (3.1.1)
	// onMessage receives every PUBLISH (body, and the stamp header's text for MQTT 5), from
	// the library's one delivery goroutine; nil for publishers.
	onMessage func(body []byte, stamp string, at time.Time)
}

// dialer opens one connection and completes CONNECT/CONNACK.
type dialer func(ctx context.Context, p params) (conn, error)

// dialTCP opens the TCP connection and, for mqtts://, completes the TLS handshake, all
// within the connect timeout. A failure here is an unreachable broker, except a TLS
// handshake that the broker answered and refused.
func dialTCP(ctx context.Context, p params) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	c, err := (&net.Dialer{Timeout: p.timeout}).DialContext(ctx, "tcp", p.ep.addr)
	if err != nil {
		return nil, &driver.UnreachableError{Broker: "mqtt", Address: p.ep.addr, Err: err}
	}
	if p.tls == nil {
		return c, nil
	}
	tc := tls.Client(c, p.tls.Clone())
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("mqtt: broker at %s refused TLS: %w", p.ep.addr, err)
	}
	return tc, nil
}

// Connection outcomes the scenario's author can act on, each one line naming the broker.
var (
	errNotAuthorized = errors.New("not authorized")
	errNoConnack     = errors.New("no CONNACK")
)

// refusal is one line for a broker that answered CONNECT but refused it.
func refusal(p params, reason string) error {
	return fmt.Errorf("mqtt: broker at %s refused CONNECT for client %q: %s", p.ep.addr, p.clientID, reason)
}

// notAuthorized is the one line for a wrong user name or password (MQTT 3.1.1 return codes 4
// and 5, MQTT 5 reason codes 0x86 and 0x87).
func notAuthorized(p params, detail string) error {
	who := "no user name"
	if p.hasUser {
		who = fmt.Sprintf("user %q", p.user)
	}
	return fmt.Errorf("mqtt: broker at %s: %w (%s, %s): check username, password_env or password_file", p.ep.addr, errNotAuthorized, who, detail)
}

// silent is the one line for a broker that took the connection but gave no CONNACK: it
// said nothing within the connect timeout, or closed the connection (a TLS listener spoken
// to in plain text, a TLS listener refusing this client's certificate, not an MQTT broker).
func silent(p params, err error) error {
	if p.tls != nil && driver.TLSRefused(true, err) {
		return fmt.Errorf("mqtt: broker at %s refused this client's TLS (%v): check tls.cert_file and tls.key_file", p.ep.addr, err)
	}
	hint := "is it a TLS listener (use an mqtts:// url)?"
	if p.tls != nil {
		hint = "is it an MQTT listener?"
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("mqtt: broker at %s: %w within connect_timeout %v: %s", p.ep.addr, errNoConnack, p.timeout, hint)
	}
	return fmt.Errorf("mqtt: broker at %s closed the connection without a CONNACK (%v): %s", p.ep.addr, err, hint)
}

// unsupportedV5 is the one line for a broker that refuses an MQTT 5 CONNECT.
func unsupportedV5(p params) error {
	return fmt.Errorf(`mqtt: broker at %s does not speak MQTT 5 (unsupported protocol version): set mqtt.protocol: "3.1.1"`, p.ep.addr)
}
