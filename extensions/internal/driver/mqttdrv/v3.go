package mqttdrv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"
	"github.com/eclipse/paho.mqtt.golang/packets"

	"github.com/mqbench/xk6-mqbench/internal/driver"
)

// v3conn is one MQTT 3.1.1 connection through paho.mqtt.golang, its own reconnection
// switched off: the driver reconnects (publisher.go, consumer.go) the same way for both
// protocols, and counts it.
type v3conn struct {
	c         mqtt.Client
	p         params
	slots     chan struct{} // one per unacknowledged publish, max_inflight of them
	done      chan struct{}
	lostOnce  sync.Once
	closeOnce sync.Once
}

var _ conn = (*v3conn)(nil)

func dialV3(ctx context.Context, p params) (conn, error) {
	v := &v3conn{p: p, done: make(chan struct{}), slots: make(chan struct{}, max(p.inflight, 1))}
	var dialErr error
	o := mqtt.NewClientOptions().
		AddBroker("tcp://" + p.ep.addr). // the address is the custom dial's; the scheme is paho's
		SetClientID(p.clientID).
		SetCleanSession(p.clean).
		SetKeepAlive(time.Duration(p.keepAlive) * time.Second).
		SetConnectTimeout(p.timeout).
		SetWriteTimeout(p.timeout).
		SetProtocolVersion(4). // 3.1.1, never the fallback to 3.1
		SetAutoReconnect(false).
		SetConnectRetry(false).
		SetOrderMatters(true).
		SetConnectionLostHandler(func(mqtt.Client, error) { v.markLost() }).
		SetCustomOpenConnectionFn(func(*url.URL, mqtt.ClientOptions) (net.Conn, error) {
			c, err := dialTCP(ctx, p)
			dialErr = err
			return c, err
		})
	if p.hasUser {
		o.SetUsername(p.user)
	}
	if p.hasPass {
		o.SetPassword(p.pass)
	}
	if p.onMessage != nil {
		o.SetDefaultPublishHandler(func(_ mqtt.Client, m mqtt.Message) {
			p.onMessage(m.Payload(), "", time.Now())
		})
	}
	v.c = mqtt.NewClient(o)
	t := v.c.Connect()
	if !t.WaitTimeout(p.timeout + time.Second) {
		v.c.Disconnect(0)
		return nil, silent(p, context.DeadlineExceeded)
	}
	if err := t.Error(); err != nil {
		if dialErr != nil {
			return nil, dialErr
		}
		return nil, v3ConnectError(p, err)
	}
	return v, nil
}

// v3ConnectError says why CONNECT failed, in one line.
func v3ConnectError(p params, err error) error {
	switch {
	case errors.Is(err, packets.ErrorRefusedBadUsernameOrPassword), errors.Is(err, packets.ErrorRefusedNotAuthorised):
		return notAuthorized(p, err.Error())
	case errors.Is(err, packets.ErrorRefusedBadProtocolVersion):
		return refusal(p, "it does not speak MQTT 3.1.1")
	case errors.Is(err, packets.ErrorRefusedIDRejected):
		return refusal(p, "client id rejected (MQTT 3.1.1 only guarantees 1–23 characters of 0-9 a-z A-Z; set mqtt.client_id_prefix)")
	case errors.Is(err, packets.ErrorRefusedServerUnavailable):
		return refusal(p, "server unavailable")
	}
	return silent(p, err)
}

func (v *v3conn) markLost() { v.lostOnce.Do(func() { close(v.done) }) }

func (v *v3conn) publish(ctx context.Context, topic string, m driver.Message) (driver.Ack, error) {
	lost := fmt.Errorf("mqtt: connection to %s lost", v.p.ep.addr)
	select {
	case <-v.done:
		return nil, lost
	default:
	}
	if v.p.qos == 0 {
		t := v.c.Publish(topic, 0, v.p.retain, m.Value)
		// Written (or queued to be written) once Publish returns; no acknowledgement exists.
		if t.WaitTimeout(0) {
			return nil, t.Error()
		}
		return nil, nil
	}
	select {
	case v.slots <- struct{}{}:
	case <-v.done:
		return nil, lost
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	t := v.c.Publish(topic, v.p.qos, v.p.retain, m.Value)
	go func() {
		// The slot is free once the broker answered, or the connection is gone.
		select {
		case <-t.Done():
		case <-v.done:
		}
		<-v.slots
	}()
	return &v3ack{t: t, lost: v.done, addr: v.p.ep.addr}, nil
}

func (v *v3conn) subscribe(ctx context.Context, filter string, qos byte) error {
	t := v.c.Subscribe(filter, qos, nil)
	select {
	case <-t.Done():
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(v.p.timeout):
		return fmt.Errorf("mqtt: no SUBACK for %q from %s within %v", filter, v.p.ep.addr, v.p.timeout)
	}
	if err := t.Error(); err != nil {
		return fmt.Errorf("mqtt: SUBSCRIBE %q at %s: %w", filter, v.p.ep.addr, err)
	}
	if st, ok := t.(*mqtt.SubscribeToken); ok {
		if rc, ok := st.Result()[filter]; ok && rc == 0x80 {
			return fmt.Errorf("mqtt: broker at %s refused SUBSCRIBE %q (return code 0x80)", v.p.ep.addr, filter)
		}
	}
	return nil
}

func (v *v3conn) lost() <-chan struct{} { return v.done }

func (v *v3conn) disconnect() {
	v.closeOnce.Do(func() {
		// Disconnect waits up to this many ms for work in flight, then closes.
		v.c.Disconnect(250)
		v.markLost()
	})
}

// v3ack resolves when paho.mqtt.golang completes the publish token (PUBACK, PUBCOMP), or
// fails once the connection is lost first: with a persistent session the library keeps
// the token open for a reconnect that this driver makes with a new client.
type v3ack struct {
	t    mqtt.Token
	lost <-chan struct{}
	addr string
}

func (a *v3ack) Wait(ctx context.Context) error {
	select {
	case <-a.t.Done():
		return a.t.Error()
	case <-a.lost:
		if done, err := a.Poll(); done {
			return err
		}
		return fmt.Errorf("mqtt: connection to %s lost before the broker acknowledged", a.addr)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (a *v3ack) Poll() (bool, error) {
	select {
	case <-a.t.Done():
		return true, a.t.Error()
	default:
	}
	select {
	case <-a.lost:
		return true, fmt.Errorf("mqtt: connection to %s lost before the broker acknowledged", a.addr)
	default:
		return false, nil
	}
}
