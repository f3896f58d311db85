package mqttdrv

import (
	"strconv"
	"time"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// Protocol versions the driver speaks, as the scenario writes them.
const (
	v5   = "5"
	v311 = "3.1.1"
)

// Options is the scenario's `broker.mqtt` block.
type Options struct {
	// Protocol is the MQTT version every connection speaks: "5" (default) or "3.1.1" (brokers
	// without MQTT 5: RabbitMQ 3.x's MQTT plugin, the NATS server's MQTT listener). Message
	// expiry, session expiry and the stamp in a user property need "5".
	Protocol string `yaml:"protocol"`
	// QoS is the quality of service of every publish: 0 (at most once: no acknowledgement,
	// publish latency is not measured), 1 (at least once: PUBACK, the default) or 2 (exactly
	// once: PUBREC, PUBREL, PUBCOMP).
	QoS *int `yaml:"qos"`
	// SubscribeQoS is the maximum QoS of the consumers' subscriptions; the broker delivers
	// each message at the lower of this and its publish QoS. Default: qos.
	SubscribeQoS *int `yaml:"subscribe_qos"`
	// CleanStart starts every connection with a new session (default true). false keeps each
	// consumer's session (its subscription and the QoS 1 and 2 messages queued for it) on the
	// broker while it is disconnected: for 3.1.1 until the run's Teardown removes it, for 5
	// for session_expiry.
	CleanStart *bool `yaml:"clean_start"`
	// SessionExpiry is how long the broker keeps a session after its connection closes
	// (MQTT 5 only; 0: the session ends with the connection). Default with clean_start false:
	// 1h, so a consumer's session outlives a broker restart or a reconnect.
	SessionExpiry time.Duration `yaml:"session_expiry"`
	// Retain sets the retain flag on every publish: the broker keeps the topic's last
	// message and hands it to every new subscription (which then receives one message more).
	Retain bool `yaml:"retain"`
	// Share makes the consumers of one subscription share its messages through an MQTT 5
	// shared subscription ($share/<shared_group>/<topic>, which Mosquitto also serves to 3.1.1
	// clients), as the consumers of other brokers do (default true). false: each consumer
	// subscribes to the topic itself and receives every message, for brokers without shared
	// subscriptions (RabbitMQ 3.x, the NATS server; Setup detects them); a subscription then
	// takes one consumer (workload.consumers: 1; validate refuses more). Mosquitto 2.0.11 restores a shared subscription's
	// persistent session at a restart but routes nothing to it until its consumer subscribes
	// again: for no loss across a broker restart, one consumer with share false.
	Share *bool `yaml:"share"`
	// SharedGroup names the shared subscription's group; default mqbench-<run id>, with
	// -s<n> appended for subscription n > 0 of a run with several (workload.subscriptions).
	SharedGroup *string `yaml:"shared_group"`
	// KeepAlive is the longest a connection stays silent before the client pings the broker
	// (CONNECT keep alive; the broker drops a client silent for 1.5 times this).
	KeepAlive time.Duration `yaml:"keep_alive"`
	// ReceiveMaximum is how many QoS 1 and 2 messages the broker may send a consumer before it
	// acknowledges them (MQTT 5 CONNECT receive maximum; 0: the protocol's 65535). A 3.1.1
	// broker decides this itself (Mosquitto: max_inflight_messages).
	ReceiveMaximum int `yaml:"receive_maximum"`
	// MaxInflight is how many QoS 1 and 2 publishes one 3.1.1 connection leaves
	// unacknowledged before Send waits (default 20, Mosquitto's max_inflight_messages: a
	// Mosquitto 2.0 broker drops a 3.1.1 client that sends more QoS 2 messages than that
	// unanswered). MQTT 5 takes this from the broker's CONNACK (receive maximum) instead.
	MaxInflight int `yaml:"max_inflight"`
	// MessageExpiry is the lifetime of every published message (MQTT 5 message expiry
	// interval, whole seconds): the broker drops it when no subscriber took it in time. 0:
	// none.
	MessageExpiry time.Duration `yaml:"message_expiry"`
	// ClientIDPrefix starts every client id; the rest is the run id, the role and the
	// connection's number (mqbench-<run id>-p0, -c1, -s2c3), so concurrent runs never share
	// an id. MQTT 3.1.1 only guarantees ids of 1–23 characters of 0-9 a-z A-Z; the brokers
	// tested here take longer ids.
	ClientIDPrefix string `yaml:"client_id_prefix"`
	// Username is the user name sent in CONNECT; default the url's user, none without one.
	Username string `yaml:"username"`
	// PasswordEnv names an environment variable holding the password, which replaces the
	// url's (the password itself never appears in the scenario). Use it over TLS: CONNECT
	// carries the password as it is.
	PasswordEnv string `yaml:"password_env"`
	// PasswordFile names a file whose content (trailing newline dropped) is the password; not
	// with password_env.
	PasswordFile string `yaml:"password_file"`
	// TLS configures the mqtts:// connection: the CA that verifies the broker, the client
	// certificate a broker with require_certificate needs, the name the broker's certificate
	// must carry (file names relative to the scenario file). An mqtts:// url without it uses
	// the system's roots; the block needs an mqtts:// url.
	TLS *driver.TLS `yaml:"tls"`
	// ConnectTimeout bounds dialling, the TLS handshake and the CONNECT/CONNACK exchange, so
	// a broker that does not answer (a TLS listener spoken to in plain text) is reported
	// instead of waited for.
	ConnectTimeout time.Duration `yaml:"connect_timeout"`
}

// CloneRefs gives a prepared copy its own pointed-to values.
func (o *Options) CloneRefs() {
	o.QoS, o.SubscribeQoS = clonePtr(o.QoS), clonePtr(o.SubscribeQoS)
	o.CleanStart, o.Share, o.SharedGroup = clonePtr(o.CleanStart), clonePtr(o.Share), clonePtr(o.SharedGroup)
	if o.TLS != nil {
		t := *o.TLS
		o.TLS = &t
	}
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Defaults fills unset fields.
func (o *Options) Defaults() {
	if o.Protocol == "" {
		o.Protocol = v5
	}
	if o.QoS == nil {
		o.QoS = ptr(1)
	}
	if o.SubscribeQoS == nil {
		o.SubscribeQoS = ptr(*o.QoS)
	}
	if o.CleanStart == nil {
		o.CleanStart = ptr(true)
	}
	if o.Share == nil {
		o.Share = ptr(true)
	}
	if o.SessionExpiry == 0 && !*o.CleanStart && o.Protocol == v5 {
		o.SessionExpiry = time.Hour
	}
	if o.MaxInflight == 0 && o.Protocol == v311 {
		o.MaxInflight = 20
	}
	if o.KeepAlive == 0 {
		o.KeepAlive = 30 * time.Second
	}
	if o.ClientIDPrefix == "" {
		o.ClientIDPrefix = "mqbench-"
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = 5 * time.Second
	}
}

func ptr[T any](v T) *T { return &v }

// maxSessionExpiry is MQTT 5's largest finite session expiry interval (0xFFFFFFFE seconds;
// 0xFFFFFFFF means never).
const maxSessionExpiry = time.Duration(0xFFFFFFFE) * time.Second

// Validate checks each field.
func (o *Options) Validate() []driver.FieldError {
	var errs []driver.FieldError
	bad := func(field, msg string) { errs = append(errs, driver.FieldError{Field: field, Msg: msg}) }
	if o.Protocol != v5 && o.Protocol != v311 {
		bad("protocol", `must be "5" or "3.1.1", got "`+o.Protocol+`"`)
	}
	badQoS := func(v *int) bool { return v != nil && (*v < 0 || *v > 2) }
	if badQoS(o.QoS) {
		bad("qos", "must be 0, 1 or 2, got "+strconv.Itoa(*o.QoS))
	}
	// A subscribe_qos defaulted from a bad qos is that one problem, reported once.
	if badQoS(o.SubscribeQoS) && !(badQoS(o.QoS) && *o.SubscribeQoS == *o.QoS) {
		bad("subscribe_qos", "must be 0, 1 or 2, got "+strconv.Itoa(*o.SubscribeQoS))
	}
	v3 := o.Protocol == v311
	if v3 && o.SessionExpiry != 0 {
		bad("session_expiry", `needs protocol "5" (an MQTT 3.1.1 session lasts until a clean session removes it: clean_start false)`)
	} else if o.SessionExpiry < 0 || o.SessionExpiry > maxSessionExpiry || o.SessionExpiry%time.Second != 0 {
		bad("session_expiry", "must be whole seconds from 0 to 4294967294s, got "+o.SessionExpiry.String())
	}
	if v3 && o.MessageExpiry != 0 {
		bad("message_expiry", `needs protocol "5" (MQTT 3.1.1 messages have no expiry)`)
	} else if o.MessageExpiry < 0 || o.MessageExpiry > maxSessionExpiry || o.MessageExpiry%time.Second != 0 {
		bad("message_expiry", "must be whole seconds from 0 to 4294967294s, got "+o.MessageExpiry.String())
	}
	if v3 && o.ReceiveMaximum != 0 {
		bad("receive_maximum", `needs protocol "5" (a 3.1.1 broker decides how many messages it sends unacknowledged)`)
	} else if o.ReceiveMaximum < 0 || o.ReceiveMaximum > 65535 {
		bad("receive_maximum", "must be 0 (the protocol's 65535) or 1..65535, got "+strconv.Itoa(o.ReceiveMaximum))
	}
	if !v3 && o.MaxInflight != 0 {
		bad("max_inflight", `needs protocol "3.1.1" (an MQTT 5 broker announces its receive maximum, which the client keeps to)`)
	} else if o.MaxInflight < 0 || o.MaxInflight > 65535 {
		bad("max_inflight", "must be 1..65535, got "+strconv.Itoa(o.MaxInflight))
	}
	if o.KeepAlive < time.Second || o.KeepAlive > 65535*time.Second || o.KeepAlive%time.Second != 0 {
		bad("keep_alive", "must be whole seconds from 1s to 65535s, got "+o.KeepAlive.String())
	}
	if o.ConnectTimeout < 100*time.Millisecond || o.ConnectTimeout > time.Minute {
		bad("connect_timeout", "must be 100ms..1m, got "+o.ConnectTimeout.String())
	}
	if o.SharedGroup != nil {
		if err := checkGroup(*o.SharedGroup); err != nil {
			bad("shared_group", err.Error())
		} else if o.Share != nil && !*o.Share {
			bad("shared_group", "not with share: false (there is no shared subscription to name)")
		}
	}
	if err := checkClientIDPrefix(o.ClientIDPrefix); err != nil {
		bad("client_id_prefix", err.Error())
	}
	errs = append(errs, o.TLS.Validate("tls")...)
	return append(errs, o.password().Check()...)
}

// password is where the scenario says the password comes from.
func (o *Options) password() driver.SecretSource {
	return driver.SecretSource{EnvField: "password_env", Env: o.PasswordEnv, FileField: "password_file", File: o.PasswordFile}
}

// AckMode says what publish latency waits for: nothing at QoS 0, the PUBACK at QoS 1 (the
// broker took the message), the PUBCOMP at QoS 2 (the end of the exactly-once handshake).
func (o *Options) AckMode() driver.AckMode {
	switch qos(o) {
	case 0:
		return driver.NoAck
	case 2:
		return "PUBCOMP"
	}
	return "PUBACK"
}

// qos is the publish QoS of defaulted options (1 for options not yet defaulted).
func qos(o *Options) int {
	if o.QoS == nil {
		return 1
	}
	return *o.QoS
}

func subQoS(o *Options) int {
	if o.SubscribeQoS == nil {
		return qos(o)
	}
	return *o.SubscribeQoS
}

func cleanStart(o *Options) bool { return o.CleanStart == nil || *o.CleanStart }
func shared(o *Options) bool     { return o.Share == nil || *o.Share }
