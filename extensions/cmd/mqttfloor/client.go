package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/eclipse/paho.golang/paho"
	mqtt3 "github.com/eclipse/paho.mqtt.golang"
)

// conn is one MQTT connection of the floor, either protocol, as the loop uses it: publish
// one message, and close. Receiving is set up when it connects (subscribe).
type conn interface {
	// publish sends payload to the floor's topic at its QoS. reuse is whether the caller may
	// overwrite payload as soon as publish returns.
	publish(payload []byte) (reuse bool, err error)
	close()
}

// dial connects one client of protocol ("5" or "3.1.1") to addr (host:port) as id. With
// onMessage set it subscribes to topic at qos first and hands every payload to onMessage,
// from one goroutine per connection (both libraries call their handlers in order).
func dial(protocol, addr, id, topic string, qos byte, onMessage func([]byte)) (conn, error) {
	switch protocol {
	case "5":
		return dial5(addr, id, topic, qos, onMessage)
	case "3.1.1":
		return dial3(addr, id, topic, qos, onMessage)
	}
	return nil, fmt.Errorf("-protocol: expected 5 or 3.1.1, got %q", protocol)
}

// v5 is paho.golang's low-level client on one TCP connection (no autopaho: no reconnect
// logic in the floor's path, as a lost connection ends the run anyway).
type v5 struct {
	c     *paho.Client
	topic string
	qos   byte
}

func dial5(addr, id, topic string, qos byte, onMessage func([]byte)) (*v5, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	cfg := paho.ClientConfig{Conn: nc, ClientID: id}
	if onMessage != nil {
		cfg.OnPublishReceived = []func(paho.PublishReceived) (bool, error){func(p paho.PublishReceived) (bool, error) {
			onMessage(p.Packet.Payload)
			return true, nil
		}}
	}
	c := paho.NewClient(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ack, err := c.Connect(ctx, &paho.Connect{ClientID: id, CleanStart: true, KeepAlive: 30})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("connect %s: %v", addr, err)
	}
	if ack.ReasonCode != 0 {
		nc.Close()
		return nil, fmt.Errorf("connect %s: reason %d", addr, ack.ReasonCode)
	}
	if onMessage != nil {
		if _, err := c.Subscribe(ctx, &paho.Subscribe{Subscriptions: []paho.SubscribeOptions{{Topic: topic, QoS: qos}}}); err != nil {
			_ = c.Disconnect(&paho.Disconnect{})
			return nil, fmt.Errorf("subscribe %s: %v", topic, err)
		}
	}
	return &v5{c, topic, qos}, nil
}

// publish: QoS 0 is written to the socket before Publish returns, so the buffer is free
// again; QoS 1 is sent asynchronously (AsyncSend: the schedule is not held up by each
// PUBACK; the server's Receive Maximum still bounds what is in flight, AddToSession waiting
// for a free slot), and its packet stays in the session until acknowledged, so the buffer
// is not reused.
func (c *v5) publish(payload []byte) (bool, error) {
	p := &paho.Publish{Topic: c.topic, QoS: c.qos, Payload: payload}
	if c.qos == 0 {
		_, err := c.c.Publish(context.Background(), p)
		return true, err
	}
	_, err := c.c.PublishWithOptions(context.Background(), p, paho.PublishOptions{Method: paho.PublishMethod_AsyncSend})
	return false, err
}

func (c *v5) close() { _ = c.c.Disconnect(&paho.Disconnect{}) }

// v3 is paho.mqtt.golang (MQTT 3.1.1), its defaults but for reconnects (off, as for v5).
type v3 struct {
	c     mqtt3.Client
	topic string
	qos   byte
}

func dial3(addr, id, topic string, qos byte, onMessage func([]byte)) (*v3, error) {
	o := mqtt3.NewClientOptions().AddBroker("tcp://" + addr).SetClientID(id).SetProtocolVersion(4).
		SetCleanSession(true).SetKeepAlive(30 * time.Second).SetAutoReconnect(false).SetConnectRetry(false)
	c := mqtt3.NewClient(o)
	if err := wait(c.Connect()); err != nil {
		return nil, fmt.Errorf("connect %s: %v", addr, err)
	}
	if onMessage != nil {
		// OrderMatters (the default): the handler runs on the library's router goroutine, one
		// message after another, so the histograms need no lock.
		if err := wait(c.Subscribe(topic, qos, func(_ mqtt3.Client, m mqtt3.Message) { onMessage(m.Payload()) })); err != nil {
			c.Disconnect(0)
			return nil, fmt.Errorf("subscribe %s: %v", topic, err)
		}
	}
	return &v3{c, topic, qos}, nil
}

// publish hands the message to the library's writer goroutine and returns (the token is
// not waited on: the loop is open like v5's); the payload is written later, so the buffer
// is not reused.
func (c *v3) publish(payload []byte) (bool, error) {
	t := c.c.Publish(c.topic, c.qos, false, payload)
	select {
	case <-t.Done(): // only when it failed at once (not connected)
		return false, t.Error()
	default:
		return false, nil
	}
}

func (c *v3) close() { c.c.Disconnect(250) }

// wait waits for a connect or subscribe token, 10 s at most.
func wait(t mqtt3.Token) error {
	if !t.WaitTimeout(10 * time.Second) {
		return fmt.Errorf("no answer in 10s")
	}
	if err := t.Error(); err != nil {
		return err
	}
	if s, ok := t.(*mqtt3.SubscribeToken); ok {
		for topic, code := range s.Result() {
			if code == 0x80 {
				return fmt.Errorf("subscription to %s refused", topic)
			}
		}
	}
	return nil
}

// clientID is a client identifier unique to this process and role.
func clientID(role string) string {
	return strings.Join([]string{"mqttfloor", role, fmt.Sprint(time.Now().UnixNano() % 1e9)}, "-")
}
