package itest

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// SQS on ElasticMQ: started alone by scripts/test.sh's phase "elasticmq" (make test), or by
// hand with scripts/brokers/start.sh elasticmq.

// TestSQSDelivery: a standard and a FIFO queue deliver every message exactly once with the
// visibility timeout well above the run's latencies; credentials from the environment (dummy
// keys: ElasticMQ checks none).
func TestSQSDelivery(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "mqbench-test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "mqbench-test")
	for _, f := range []string{"sqs", "sqs-fifo"} {
		t.Run(f, func(t *testing.T) {
			sideBySide(t)
			checkDelivery(t, f, true, noServer)
		})
	}
}

// TestSQSRedelivery: messages not deleted within the visibility timeout come back; the ledger
// counts them as duplicates and none as lost (at-least-once delivery), and the default loss
// threshold passes. No credentials in the environment: a loopback endpoint gets dummy ones.
func TestSQSRedelivery(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	r := runScenario(t, "extensions/itest/testdata/sqs-redelivery.yaml")
	if r.code != 0 || r.summary == nil {
		t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
	}
	c := r.summary.Cells[0]
	l := c.Ledger
	t.Logf("sent %d received %d ledger %+v", c.Sent, c.Received, l)
	if !c.LedgerFinal || l.Lost != 0 || l.Failed != 0 || l.Duplicated == 0 || l.Issued != c.Sent+c.SentWarmup {
		t.Errorf("ledger %+v (final %v), sent %d: want duplicates > 0, nothing lost or failed", l, c.LedgerFinal, c.Sent)
	}
	if c.Received <= c.Sent {
		t.Errorf("received %d of %d sent: redeliveries should add to it", c.Received, c.Sent)
	}
	if left := leftovers(t, "sqs-redelivery", r.summary.RunID); len(left) > 0 {
		t.Errorf("the run left behind what it created: %v", left)
	}
}

// killSQS (TestBrokerKilledAndRestartedMidRun/sqs): the endpoint is killed mid-run (a
// private ElasticMQ, so the shared one is not disturbed) and started again 2 s later, without the queue: ElasticMQ keeps queues in memory.
// The run finishes its cell, writes its results, fails its thresholds (exit 99) and says why:
// a line naming SQS and the endpoint. (Left dead, the run's teardown could not delete the
// queue and k6 would end with its own 107.)
func killSQS(t *testing.T) {
	b := startPrivate(t, "elasticmq", "ELASTICMQ_PORT=19424")
	// Setup ~1 s, warm-up 3 s (a fresh ElasticMQ JVM on a busy machine answers in seconds at
	// first): killed ~3 s into the measurement. Just before the kill the test asks the queue
	// how many messages it holds: ElasticMQ keeps them in memory, so those, and what it
	// acknowledges between the question and the kill, are all a kill can lose.
	var held int64 = -1
	var asked time.Time
	r := runWithOutageProbe(t, "fault-sqs", 6*time.Second, b, func() {
		asked = time.Now()
		var err error
		if held, err = sqsDepth("127.0.0.1:19424", "mqbench-itest-fault"); err != nil {
			t.Errorf("reading the queue's depth before the kill: %v", err)
		}
	})
	killedAfter := time.Since(asked) // an upper bound on the question → kill window
	if r.code != 99 || r.summary.ThresholdsOK {
		t.Fatalf("exit %d, thresholds_ok %v: want 99 (thresholds failed)\n%s", r.code, r.summary.ThresholdsOK, r)
	}
	c := r.summary.Cells[0]
	l := c.Ledger
	t.Logf("sent %d received %d publish errors %d; lost %d unconfirmed %d held %d failed %d; queue depth before the kill %d; ledger %+v",
		c.Sent, c.Received, c.PublishErrors, l.Lost, l.Unconfirmed, l.Held, l.Failed, held, l)
	if c.PublishErrors == 0 {
		t.Errorf("no publish errors: the sends after the kill must fail")
	}
	// The outage shows in the ledger as sends the broker never confirmed: failed when their
	// error came back, unconfirmed when the SDK was still retrying as the drain ended. Neither
	// is lost (the ledger once counted those as lost: 414 publish errors, failed 8, lost 406).
	if l.Failed+l.Unconfirmed == 0 {
		t.Errorf("ledger %+v: the outage left no failed or unconfirmed send", l)
	}
	// Lost is only what the broker confirmed and never delivered: at most what the queue
	// held at the question, plus what it confirmed until the kill (at the cell's rate), plus
	// one for rounding. The queue is gone after the restart, so nothing can be held.
	if bound := held + int64(math.Ceil(float64(c.Rate)*killedAfter.Seconds())) + 1; held < 0 || int64(l.Lost) > bound {
		t.Errorf("lost %d, but the broker held %d messages %v before the kill (bound %d): lost counts what the broker never confirmed",
			l.Lost, held, killedAfter.Round(time.Millisecond), bound)
	}
	if l.Held != 0 {
		t.Errorf("held %d: the restarted ElasticMQ has no queue, so it holds nothing", l.Held)
	}
	if c.Received+c.ReceivedWarmup == 0 {
		t.Errorf("nothing received before the kill\n%s", r)
	}
	out := r.stdout + r.stderr
	if !regexp.MustCompile(`sqs.*127\.0\.0\.1:19424`).MatchString(out) {
		t.Errorf("no line names sqs and the endpoint 127.0.0.1:19424:\n%s", r)
	}
	noStackTrace(t, r)
}

// TestSQSUnreachable: nothing at the endpoint: exit 112, one line naming sqs and the address.
func TestSQSUnreachable(t *testing.T) { checkUnreachable(t, "unreachable-sqs", "sqs") }

// TestSQSNoCredentials: AWS's SQS without credentials in the environment is refused at once
// (exit 113), before any network call (no instance-metadata lookup), naming the variables.
func TestSQSNoCredentials(t *testing.T) {
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(k, "")
	}
	start := time.Now()
	r := runScenario(t, "extensions/itest/testdata/nocreds-sqs.yaml")
	if r.code != 113 {
		t.Fatalf("exit %d, want 113\n%s", r.code, r)
	}
	if !strings.Contains(r.stderr, "AWS_ACCESS_KEY_ID") {
		t.Errorf("the error does not name AWS_ACCESS_KEY_ID:\n%s", r.stderr)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("took %v: no credentials must fail fast", el)
	}
	noStackTrace(t, r)
}

// sqsLeftovers lists ElasticMQ's queues named mqbench-itest-* (ListQueues, query protocol).
func sqsLeftovers(t *testing.T) []string {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:9424/?Action=ListQueues&QueueNamePrefix=mqbench-itest-")
	if err != nil {
		t.Fatalf("listing SQS queues: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("listing SQS queues: %v %s", err, resp.Status)
	}
	var left []string
	for _, m := range regexp.MustCompile(`<QueueUrl>([^<]*)</QueueUrl>`).FindAllStringSubmatch(string(b), -1) {
		left = append(left, m[1][strings.LastIndex(m[1], "/")+1:])
	}
	return left
}

// sqsDepth is what ElasticMQ at addr holds in the queue whose name starts with prefix:
// visible + in flight + delayed messages (GetQueueAttributes, query protocol), as the
// driver's own backlog counts them.
func sqsDepth(addr, prefix string) (int64, error) {
	get := func(url string) (string, error) {
		cl := http.Client{Timeout: 2 * time.Second}
		resp, err := cl.Get(url)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s: %s", resp.Status, b)
		}
		return string(b), err
	}
	list, err := get("http://" + addr + "/?Action=ListQueues&QueueNamePrefix=" + prefix)
	if err != nil {
		return -1, err
	}
	m := regexp.MustCompile(`<QueueUrl>[^<]*/([^/<]+)</QueueUrl>`).FindStringSubmatch(list)
	if m == nil {
		return -1, fmt.Errorf("no queue named %s*: %s", prefix, list)
	}
	attrs, err := get("http://" + addr + "/queue/" + m[1] + "?Action=GetQueueAttributes&AttributeName.1=All")
	if err != nil {
		return -1, err
	}
	var n int64
	for _, name := range []string{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible", "ApproximateNumberOfMessagesDelayed"} {
		v := regexp.MustCompile(`<Name>` + name + `</Name>\s*<Value>(\d+)</Value>`).FindStringSubmatch(attrs)
		if v == nil {
			return -1, fmt.Errorf("no %s in %s", name, attrs)
		}
		var x int64
		fmt.Sscan(v[1], &x)
		n += x
	}
	return n, nil
}
