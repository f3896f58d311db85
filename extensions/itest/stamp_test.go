package itest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	amqp091 "github.com/rabbitmq/amqp091-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/mqbench/xk6-mqbench/internal/driver"
	"github.com/mqbench/xk6-mqbench/internal/header"
)

// stampPayload is the user's message: with `stamp: header` every body on the broker is exactly
// these bytes, read back with each broker's plain client.
const stampPayload = `{"order":{"id":"A-1042","customer":"c-77","lines":[{"sku":"X1","qty":2},{"sku":"Y9","qty":1}],"total":"42.50","currency":"EUR"}}` + "\n"

// stampSent is how many messages a stamp run sends, 200 msg/s for 2 s with no warm-up. On a
// busy machine (these tests run in the waiting tier) k6's executor can miss ticks due at the
// very end of the duration when its loop runs late (not counted as dropped; seen: 399), and
// it may start one more; the checks compare the broker's messages with the count the run
// reports, this only with a plausible range.
const stampSent = 400

// plausibleSent says whether a stamp run's count is stampSent, a few of the last ticks missed
// at most (5 %), or one more.
func plausibleSent(n uint64) bool { return n >= stampSent*95/100 && n <= stampSent+1 }

// A `stamp: header` run on Kafka, RabbitMQ and NATS: every message on the broker, read with
// the broker's own client, has the payload file's bytes as its body and a 36-byte stamp in
// its header, and mqbench's consumers (which found the stamp there) received every message.
func TestStampInHeaderLeavesTheBodyAlone(t *testing.T) {
	waitTurn(t, 12*time.Second) // bodies and counts, no timing judged: in the waiting tier
	dest := fmt.Sprintf("mqbench-itest-stamp-%d", time.Now().UnixNano())
	for _, tc := range []struct {
		broker, block string
		// read returns the bodies and stamps on the broker once the run has ended; listen,
		// when set, starts before the run (a core NATS subject keeps nothing).
		listen func(t *testing.T, dest string) func() (bodies, stamps [][]byte)
		read   func(t *testing.T, dest string, n uint64) (bodies, stamps [][]byte)
	}{
		{"kafka", `kafka: { topic: { keep: true } }`, nil, readKafkaStamped},
		{"rabbitmq", `rabbitmq: { queue_type: stream, keep: true }`, nil, readRabbitStamped},
		{"nats", `nats: { mode: core }`, listenNATSStamped, nil},
	} {
		t.Run(tc.broker, func(t *testing.T) {
			dir := t.TempDir()
			var collect func() (bodies, stamps [][]byte)
			if tc.listen != nil {
				collect = tc.listen(t, dest)
			}
			yaml := fmt.Sprintf(`name: stamp
broker: { type: %s, url: %q, %s }
workload: { destination: %s, duration: 2s, drain: 3s, payload: { content: file, file: order.json, stamp: header } }
matrix:
  - { size: %dB, rate: 200 }
`, tc.broker, stampURLs[tc.broker], tc.block, dest, len(stampPayload))
			r := runShape(t, dir, "stamp", yaml, map[string]string{"order.json": stampPayload})
			c := r.summary.Cells[0]
			if !plausibleSent(c.Sent) || c.Received != c.Sent || c.Ledger.Lost != 0 {
				t.Fatalf("sent %d, received %d, lost %d; want about %d, all received\n%s", c.Sent, c.Received, c.Ledger.Lost, stampSent, r)
			}
			var bodies, stamps [][]byte
			if collect != nil {
				bodies, stamps = collect()
			} else {
				bodies, stamps = tc.read(t, dest, c.Sent)
			}
			checkStamped(t, bodies, stamps, c.Sent)
		})
	}
}

var stampURLs = map[string]string{
	"kafka":    "kafka://127.0.0.1:9092",
	"rabbitmq": "amqp://guest:guest@127.0.0.1:5672/",
	"nats":     "nats://127.0.0.1:4222",
}

// checkStamped: n messages, each body the payload file's bytes, each stamp a full header.
func checkStamped(t *testing.T, bodies, stamps [][]byte, n uint64) {
	t.Helper()
	if uint64(len(bodies)) != n {
		t.Fatalf("the broker's own client read %d messages, mqbench sent %d", len(bodies), n)
	}
	seqs := map[uint64]bool{}
	for i, b := range bodies {
		if !bytes.Equal(b, []byte(stampPayload)) {
			t.Fatalf("message %d: body %q, want the payload file's %d bytes", i, b, len(stampPayload))
		}
		h, err := header.Get(stamps[i])
		if err != nil || len(stamps[i]) != header.Size {
			t.Fatalf("message %d: stamp header of %d bytes (%v), want %d", i, len(stamps[i]), err, header.Size)
		}
		seqs[h.Seq] = true
	}
	if uint64(len(seqs)) != n {
		t.Errorf("%d distinct sequence numbers in %d stamps", len(seqs), n)
	}
}

func readKafkaStamped(t *testing.T, dest string, n uint64) (bodies, stamps [][]byte) {
	cl, err := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:9092"), kgo.ConsumeTopics(dest),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	defer func() { _, _ = kadm.NewClient(cl).DeleteTopics(context.Background(), dest) }()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for uint64(len(bodies)) < n && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
			var stamp []byte
			for _, h := range r.Headers {
				if h.Key == driver.StampHeader {
					stamp = h.Value
				}
			}
			bodies, stamps = append(bodies, r.Value), append(stamps, stamp)
		})
	}
	return bodies, stamps
}

func readRabbitStamped(t *testing.T, dest string, n uint64) (bodies, stamps [][]byte) {
	conn, err := amqp091.Dial(stampURLs["rabbitmq"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = ch.QueueDelete(dest, false, false, false) }()
	if err := ch.Qos(1000, 0, false); err != nil {
		t.Fatal(err)
	}
	ds, err := ch.Consume(dest, "", false, false, false, false, amqp091.Table{"x-stream-offset": "first"})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for uint64(len(bodies)) < n {
		select {
		case d := <-ds:
			stamp, _ := d.Headers[driver.StampHeader].([]byte)
			bodies, stamps = append(bodies, d.Body), append(stamps, stamp)
			_ = d.Ack(false)
		case <-timeout:
			return bodies, stamps
		}
	}
	return bodies, stamps
}

func listenNATSStamped(t *testing.T, dest string) func() (bodies, stamps [][]byte) {
	nc, err := nats.Connect(stampURLs["nats"])
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan *nats.Msg, 2*stampSent)
	sub, err := nc.ChanSubscribe(dest, msgs)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return func() (bodies, stamps [][]byte) {
		_ = sub.Unsubscribe()
		var rs driver.Restamper
		for len(msgs) > 0 {
			m := <-msgs
			joined := rs.JoinText(m.Header.Get(driver.StampHeader), nil) // the stamp alone, decoded
			bodies, stamps = append(bodies, m.Data), append(stamps, append([]byte(nil), joined...))
		}
		return bodies, stamps
	}
}

// A template with the stamp in a header on core NATS, read by a plain subscriber: every body
// is the template rendered for its message (valid JSON, padded to the cell's size), each
// with its own order id and sequence number, and mqbench received them all.
func TestTemplateBodiesOnTheWire(t *testing.T) {
	waitTurn(t, 8*time.Second) // bodies and counts, no timing judged: in the waiting tier
	const tmpl = `{"order_id": "{{uuid}}", "seq": {{seq}}, "at": "{{now}}", "qty": {{random_int 1 5}}}`
	dest := fmt.Sprintf("mqbench.itest.template.%d", time.Now().UnixNano())
	collect := listenNATSStamped(t, dest)
	yaml := fmt.Sprintf(`name: orders
broker: { type: nats, url: %q, nats: { mode: core } }
workload: { destination: %s, duration: 2s, drain: 3s, payload: { content: template, file: order.json, stamp: header } }
matrix:
  - { size: 256B, rate: 200 }
`, stampURLs["nats"], dest)
	r := runShape(t, t.TempDir(), "orders", yaml, map[string]string{"order.json": tmpl})
	c := r.summary.Cells[0]
	if !plausibleSent(c.Sent) || c.Received != c.Sent {
		t.Fatalf("sent %d, received %d; want about %d, all received\n%s", c.Sent, c.Received, stampSent, r)
	}
	bodies, stamps := collect()
	if uint64(len(bodies)) != c.Sent {
		t.Fatalf("a plain subscriber read %d messages, mqbench sent %d", len(bodies), c.Sent)
	}
	ids, seqs := map[string]bool{}, map[uint64]bool{}
	for i, b := range bodies {
		var o struct {
			OrderID string `json:"order_id"`
			Seq     uint64 `json:"seq"`
			At      string `json:"at"`
			Qty     int    `json:"qty"`
		}
		if len(b) != 256 || json.Unmarshal(b, &o) != nil || o.OrderID == "" || o.At == "" || o.Qty < 1 || o.Qty > 5 {
			t.Fatalf("message %d: %d bytes %q, want the template rendered and padded to 256", i, len(b), b)
		}
		if _, err := header.Get(stamps[i]); err != nil {
			t.Fatalf("message %d: no stamp in its header (%v)", i, err)
		}
		ids[o.OrderID], seqs[o.Seq] = true, true
	}
	if len(ids) != len(bodies) || len(seqs) != len(bodies) {
		t.Errorf("%d distinct order ids and %d sequence numbers in %d bodies", len(ids), len(seqs), len(bodies))
	}
}

// A replay whose rows carry their payloads, on core NATS read by a plain subscriber: each
// recorded body arrives as recorded (the stamp in a header, chosen by default for recorded
// bytes), a row without one gets a made-up body of its size, and mqbench received every row.
func TestReplayedPayloadsArriveAsRecorded(t *testing.T) {
	waitTurn(t, 6*time.Second) // bodies and counts, no timing judged: in the waiting tier
	bodies := []string{`{"event":"login","user":7}`, `{"event":"view","page":"/"}`, `{"event":"logout","user":7}`}
	csv := "offset_ms,size,key,payload\n"
	for i, b := range bodies {
		csv += fmt.Sprintf("%d,,u7,%s\n%d,64,u8\n", i*500, base64.StdEncoding.EncodeToString([]byte(b)), i*500+250)
	}
	dest := fmt.Sprintf("mqbench.itest.replay.payloads.%d", time.Now().UnixNano())
	collect := listenNATSStamped(t, dest)
	yaml := fmt.Sprintf(`name: replayed
broker: { type: nats, url: %q, nats: { mode: core } }
workload: { destination: %s, drain: 2s }
matrix:
  - { replay: { file: day.csv } }
`, stampURLs["nats"], dest)
	r := runShape(t, t.TempDir(), "replayed", yaml, map[string]string{"day.csv": csv})
	if c := r.summary.Cells[0]; c.Sent != 6 || c.Received != 6 {
		t.Fatalf("sent %d, received %d; want the recording's 6 rows\n%s", c.Sent, c.Received, r)
	}
	got, stamps := collect()
	var recorded []string
	for i, b := range got {
		if len(b) != 64 {
			recorded = append(recorded, string(b))
		}
		if _, err := header.Get(stamps[i]); err != nil {
			t.Fatalf("message %d: no stamp in its header (%v)", i, err)
		}
	}
	if strings.Join(recorded, "\n") != strings.Join(bodies, "\n") || len(got) != 6 {
		t.Errorf("%d messages; the recorded bodies arrived as %q, want %q", len(got), recorded, bodies)
	}
}
