package itest

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// rabbitManagement sends one request to RabbitMQ's management API as guest.
func rabbitManagement(t *testing.T, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, "http://127.0.0.1:15672/api/"+path, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("guest", "guest")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s", method, path, resp.Status)
	}
}

// rabbitTracedVhost creates a vhost of the test's own with RabbitMQ's firehose tracer on
// (every delivery from a queue is copied to amq.rabbitmq.trace as deliver.<queue>), open to
// guest and deleted with everything in it when t ends; it returns the vhost's AMQP url. The
// tracer stays off everywhere else, so no other test pays for it.
func rabbitTracedVhost(t *testing.T, vhost string) string {
	t.Helper()
	rabbitManagement(t, "PUT", "vhosts/"+url.PathEscape(vhost), `{"tracing": true}`)
	t.Cleanup(func() { rabbitManagement(t, "DELETE", "vhosts/"+url.PathEscape(vhost), "") })
	rabbitManagement(t, "PUT", "permissions/"+url.PathEscape(vhost)+"/guest", `{"configure": ".*", "write": ".*", "read": ".*"}`)
	return "amqp://guest:guest@127.0.0.1:5672/" + url.PathEscape(vhost)
}

// rabbitDeliveries counts what RabbitMQ itself delivers from each of a run's queues: a trace
// queue per queue, bound to the firehose's deliver.<queue>, whose depth is that count. Unlike
// the management API's message_stats (sampled from each channel's statistics, which a run's
// channels closing can cut short), nothing is lost when the run's connections close.
type rabbitDeliveries struct {
	ch     *amqp091.Channel
	traces []string
}

func traceDeliveries(t *testing.T, vhostURL string, queues []string) *rabbitDeliveries {
	t.Helper()
	conn, err := amqp091.Dial(vhostURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	r := &rabbitDeliveries{ch: ch}
	for i, q := range queues {
		trace := fmt.Sprintf("trace-%d", i)
		if _, err := ch.QueueDeclare(trace, false, false, true, false, nil); err != nil {
			t.Fatal(err)
		}
		if err := ch.QueueBind(trace, "deliver."+q, "amq.rabbitmq.trace", false, nil); err != nil {
			t.Fatal(err)
		}
		r.traces = append(r.traces, trace)
	}
	return r
}

// delivered is how many messages RabbitMQ delivered from queue i: its trace queue's depth,
// read until it reaches want or 10 s pass (the copies are routed as the deliveries happen).
func (r *rabbitDeliveries) delivered(t *testing.T, i int, want uint64) uint64 {
	t.Helper()
	var got uint64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		q, err := r.ch.QueueDeclarePassive(r.traces[i], false, false, true, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got = uint64(q.Messages); got == want || time.Now().After(deadline) {
			return got
		}
	}
}
