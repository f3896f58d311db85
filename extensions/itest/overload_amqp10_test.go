package itest

import (
	"context"
	"encoding/json"
	"fmt"
	neturl "net/url"
	"strings"

	amqp "github.com/Azure/go-amqp"
)

// The overload test's depth reads for the AMQP 1.0 brokers, through their own management over
// AMQP (neither exposes another port here): Artemis's management address and ActiveMQ
// Classic's statistics plugin. Both answer a request at its reply-to address.

// amqpAsker opens one connection and asks requests on it, each with its own reply address.
func amqpAsker(ctx context.Context, url string) (ask func(ctx context.Context, to string, req *amqp.Message, last func(*amqp.Message) bool) ([]*amqp.Message, error), closeConn func(), err error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, nil, err
	}
	pass, _ := u.User.Password()
	conn, err := amqp.Dial(ctx, "amqp://"+u.Host, &amqp.ConnOptions{SASLType: amqp.SASLTypePlain(u.User.Username(), pass)})
	if err != nil {
		return nil, nil, err
	}
	ask = func(ctx context.Context, to string, req *amqp.Message, last func(*amqp.Message) bool) ([]*amqp.Message, error) {
		s, err := conn.NewSession(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer func() { _ = s.Close(context.Background()) }()
		rcv, err := s.NewReceiver(ctx, "", &amqp.ReceiverOptions{DynamicAddress: true, Credit: 100})
		if err != nil {
			return nil, err
		}
		snd, err := s.NewSender(ctx, to, nil)
		if err != nil {
			return nil, err
		}
		reply := rcv.Address()
		req.Properties = &amqp.MessageProperties{ReplyTo: &reply}
		if err := snd.Send(ctx, req, nil); err != nil {
			return nil, err
		}
		var out []*amqp.Message
		for {
			m, err := rcv.Receive(ctx, nil)
			if err != nil {
				return out, err
			}
			_ = rcv.AcceptMessage(ctx, m)
			out = append(out, m)
			if last(m) {
				return out, nil
			}
		}
	}
	return ask, func() { _ = conn.Close() }, nil
}

// artemisDepth: the queue's messageCount (waiting plus delivered and not yet accepted) from
// Artemis's management address, resource queue.<name>.
func artemisDepth(ctx context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	ask, closeConn, err := amqpAsker(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	read := func(ctx context.Context) (int64, error) {
		ms, err := ask(ctx, "activemq.management", &amqp.Message{
			ApplicationProperties: map[string]any{"_AMQ_ResourceName": "queue." + dest, "_AMQ_Attribute": "messageCount"},
			Value:                 "",
		}, func(*amqp.Message) bool { return true })
		if err != nil {
			return 0, err
		}
		body, _ := ms[0].Value.(string)
		if body == "" {
			body = string(ms[0].GetData())
		}
		var out []int64
		if err := json.Unmarshal([]byte(body), &out); err != nil || len(out) != 1 {
			return 0, fmt.Errorf("artemis management answer %q", body)
		}
		return out[0], nil
	}
	return read, closeConn, nil
}

// activemqDepth: the queue's size (every message not yet acknowledged) from ActiveMQ Classic's
// statistics plugin, which answers a message to ActiveMQ.Statistics.Destination.<name> with a
// map per destination and, asked to, an empty one after the last.
func activemqDepth(ctx context.Context, url, dest string) (func(context.Context) (int64, error), func(), error) {
	ask, closeConn, err := amqpAsker(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	empty := func(m *amqp.Message) bool { return len(stringMap(m.Value)) == 0 }
	read := func(ctx context.Context) (int64, error) {
		ms, err := ask(ctx, "queue://ActiveMQ.Statistics.Destination."+dest, &amqp.Message{
			ApplicationProperties: map[string]any{"ActiveMQ.Statistics.Destination.List.End.With.Null": true},
			Value:                 "",
		}, empty)
		if err != nil {
			return 0, err
		}
		for _, m := range ms {
			v := stringMap(m.Value)
			if name, _ := v["destinationName"].(string); strings.TrimPrefix(name, "queue://") == dest {
				switch n := v["size"].(type) {
				case int64:
					return n, nil
				case int32:
					return int64(n), nil
				}
				return 0, fmt.Errorf("activemq statistics: size %T %v", v["size"], v["size"])
			}
		}
		return 0, fmt.Errorf("activemq statistics: no queue %s", dest)
	}
	return read, closeConn, nil
}

// stringMap is an AMQP map body with string keys (go-amqp gives map[any]any or
// map[string]any); nil for any other body.
func stringMap(body any) map[string]any {
	switch v := body.(type) {
	case map[string]any:
		return v
	case map[any]any:
		out := map[string]any{}
		for k, x := range v {
			if s, ok := k.(string); ok {
				out[s] = x
			}
		}
		return out
	}
	return nil
}
