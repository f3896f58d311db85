package mqttdrv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/eclipse/paho.golang/packets"
	"github.com/eclipse/paho.golang/paho"
	"github.com/eclipse/paho.golang/paho/session/state"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// v5conn is one MQTT 5 connection through paho.golang's low-level Client. Publishing goes
// around Client.Publish, which blocks until the acknowledgement: Send adds the PUBLISH to
// the session (which assigns its packet id and holds it to the broker's receive maximum)
// and writes it itself, in call order, and the Ack waits for the session's answer.
type v5conn struct {
	c         *paho.Client
	sess      *state.State
	nc        *wireConn // locked: paho's goroutines write to it too
	p         params
	done      chan struct{}
	closeOnce sync.Once
}

var _ conn = (*v5conn)(nil)

// dialV5 connects and sends CONNECT; a broker that answers a 3.1.1 CONNACK or closes the
// connection is asked, with a 3.1.1 CONNECT, whether it speaks 3.1.1 only (probe.go).
func dialV5(ctx context.Context, p params) (conn, error) {
	raw, err := dialTCP(ctx, p)
	if err != nil {
		return nil, err
	}
	rec := &firstBytes{Conn: raw}
	v := &v5conn{sess: state.NewInMemory(), nc: newWireConn(rec, raw), p: p, done: make(chan struct{})}
	cfg := paho.ClientConfig{Conn: v.nc, Session: v.sess, PacketTimeout: p.timeout}
	if p.onMessage != nil {
		cfg.OnPublishReceived = []func(paho.PublishReceived) (bool, error){v.received}
	}
	v.c = paho.NewClient(cfg)
	cp := &paho.Connect{ClientID: p.clientID, CleanStart: p.clean, KeepAlive: p.keepAlive,
		Username: p.user, UsernameFlag: p.hasUser, Password: []byte(p.pass), PasswordFlag: p.hasPass,
		Properties: &paho.ConnectProperties{}}
	if p.expiry > 0 {
		cp.Properties.SessionExpiryInterval = &p.expiry
	}
	if p.recvMax > 0 {
		cp.Properties.ReceiveMaximum = &p.recvMax
	}
	ca, err := v.c.Connect(ctx, cp)
	if err != nil {
		_ = raw.Close()
		return nil, v.connectError(ctx, ca, rec, err)
	}
	if ca.Properties != nil && ca.Properties.MaximumQoS != nil && p.qos > *ca.Properties.MaximumQoS {
		_ = v.c.Disconnect(&paho.Disconnect{})
		return nil, refusal(p, fmt.Sprintf("the broker takes QoS %d at most; set mqtt.qos", *ca.Properties.MaximumQoS))
	}
	// A broker without retained messages drops a client that publishes one: say so at connect.
	if p.retain && p.onMessage == nil && ca.Properties != nil && !ca.Properties.RetainAvailable {
		_ = v.c.Disconnect(&paho.Disconnect{})
		return nil, refusal(p, "the broker keeps no retained messages (CONNACK: Retain Available 0); set mqtt.retain: false")
	}
	go func() {
		<-v.c.Done()
		// Pending acknowledgements are answered by the lost channel (v5ack); the session is
		// not reused by the next connection, which starts its own.
		_ = v.sess.Close()
		close(v.done)
	}()
	return v, nil
}

// connectError says why CONNECT failed, in one line.
func (v *v5conn) connectError(ctx context.Context, ca *paho.Connack, rec *firstBytes, err error) error {
	p := v.p
	if ca != nil {
		switch ca.ReasonCode {
		case packets.ConnackBadUsernameOrPassword, packets.ConnackNotAuthorized:
			return notAuthorized(p, fmt.Sprintf("reason code %#x", ca.ReasonCode))
		case packets.ConnackUnsupportedProtocolVersion:
			return unsupportedV5(p)
		}
		reason := fmt.Sprintf("reason code %#x", ca.ReasonCode)
		if ca.Properties != nil && ca.Properties.ReasonString != "" {
			reason += ": " + ca.Properties.ReasonString
		}
		return refusal(p, reason)
	}
	if rec.v311Connack() {
		// A 3.1.1 CONNACK (return code 1: unacceptable protocol version) does not parse as 5.
		return unsupportedV5(p)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return silent(p, err)
	}
	if ctx.Err() != nil {
		return &driver.UnreachableError{Broker: "mqtt", Address: p.ep.addr, Err: err}
	}
	// Closed without a CONNACK: ask in 3.1.1 whether it speaks that instead.
	if speaks311(ctx, p) {
		return unsupportedV5(p)
	}
	return silent(p, err)
}

func (v *v5conn) received(pr paho.PublishReceived) (bool, error) {
	now := time.Now()
	stamp := ""
	if pr.Packet.Properties != nil {
		stamp = pr.Packet.Properties.User.Get(driver.StampHeader)
	}
	v.p.onMessage(pr.Packet.Payload, stamp, now)
	return true, nil
}

func (v *v5conn) publish(ctx context.Context, topic string, m driver.Message) (driver.Ack, error) {
	select {
	case <-v.done:
		return nil, v.lostErr()
	default:
	}
	pb := &packets.Publish{QoS: v.p.qos, Retain: v.p.retain, Topic: topic, Payload: m.Value, Properties: &packets.Properties{}}
	if v.p.msgExpiry > 0 {
		e := v.p.msgExpiry
		pb.Properties.MessageExpiry = &e
	}
	if len(m.Stamp) > 0 {
		pb.Properties.User = []packets.User{{Key: driver.StampHeader, Value: driver.StampText(m.Stamp)}}
	}
	if v.p.qos == 0 {
		return nil, v.nc.writePublish(pb)
	}
	a := &v5ack{resp: make(chan packets.ControlPacket, 1), lost: v.done, addr: v.p.ep.addr}
	if err := v.sess.AddToSession(ctx, pb, a.resp); err != nil {
		return nil, fmt.Errorf("mqtt: publish to %s: %w", v.p.ep.addr, err)
	}
	if err := v.nc.writePublish(pb); err != nil {
		// The session still answers the Ack (with a failure when the connection is gone).
		return a, nil
	}
	return a, nil
}

func (v *v5conn) lostErr() error {
	return fmt.Errorf("mqtt: connection to %s lost", v.p.ep.addr)
}

func (v *v5conn) subscribe(ctx context.Context, filter string, qos byte) error {
	sa, err := v.c.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: filter, QoS: qos}}})
	if err != nil {
		if sa != nil && len(sa.Reasons) == 1 {
			return fmt.Errorf("mqtt: broker at %s refused SUBSCRIBE %q: reason code %#x", v.p.ep.addr, filter, sa.Reasons[0])
		}
		return fmt.Errorf("mqtt: SUBSCRIBE %q at %s: %w", filter, v.p.ep.addr, err)
	}
	return nil
}

func (v *v5conn) lost() <-chan struct{} { return v.done }

func (v *v5conn) disconnect() {
	v.closeOnce.Do(func() {
		_ = v.c.Disconnect(&paho.Disconnect{ReasonCode: 0})
		t := time.NewTimer(v.p.timeout)
		defer t.Stop()
		select {
		case <-v.done:
		case <-t.C:
		}
	})
}

// v5ack resolves at the session's answer to one QoS 1 or 2 PUBLISH, or fails once its
// connection is lost first (the session then forgets the message without answering).
type v5ack struct {
	resp chan packets.ControlPacket
	lost <-chan struct{}
	addr string
	mu   sync.Mutex
	got  bool
	err  error
}

func (a *v5ack) Wait(ctx context.Context) error {
	if done, err := a.Poll(); done {
		return err
	}
	select {
	case r := <-a.resp:
		return a.set(ackErr(r, a.addr))
	case <-a.lost:
		if done, err := a.Poll(); done {
			return err
		}
		return a.set(fmt.Errorf("mqtt: connection to %s lost before the broker acknowledged", a.addr))
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (a *v5ack) Poll() (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.got {
		select {
		case r := <-a.resp:
			a.got, a.err = true, ackErr(r, a.addr)
		default:
			return false, nil
		}
	}
	return true, a.err
}

func (a *v5ack) set(err error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.got {
		a.got, a.err = true, err
	}
	return a.err
}

// ackErr reads the session's answer: PUBACK or PUBCOMP, or a PUBACK or PUBREC carrying a
// failure reason code, or the empty packet of a session closed first.
func ackErr(r packets.ControlPacket, addr string) error {
	var code byte
	switch c := r.Content.(type) {
	case *packets.Puback:
		code = c.ReasonCode
	case *packets.Pubrec:
		code = c.ReasonCode
	case *packets.Pubcomp:
		code = c.ReasonCode
	default:
		return fmt.Errorf("mqtt: connection to %s lost before the broker acknowledged", addr)
	}
	if code >= 0x80 {
		return fmt.Errorf("mqtt: broker at %s refused the message: reason code %#x", addr, code)
	}
	return nil
}
