package itest

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every broker mode: a short two-cell run at a low rate must deliver every measured message
// exactly once, with latencies that are positive and plausible, and pass its thresholds.
func TestDeliveryAndLatency(t *testing.T) {
	const (
		nats   = `^NATS Server 2\.\d+\.\d+$`
		redis  = `^Redis \d+\.\d+\.\d+$`
		rabbit = `^RabbitMQ \d+\.\d+\.\d+$`
	)
	cases := []struct {
		file   string
		acked  bool   // the mode has a broker acknowledgement, so publish latency is measured
		server string // what summary.json's broker.server must match
	}{
		{"nats-core-embedded", false, nats},
		{"nats-core", false, nats},
		{"nats-jetstream", true, nats},
		{"redis-pubsub", true, redis},
		{"redis-streams", true, redis},
		{"kafka-acks-all", true, `^Kafka (at least )?v\d+\.\d+ \(guessed from its API versions\)$`},
		{"rabbitmq-classic", true, rabbit},
		{"rabbitmq-quorum", true, rabbit},
		{"nsq", true, noServer},
		{"nsq-mpub", true, noServer}, // MPUB batches (publish_batch)
		{"zeromq", false, noServer},  // brokerless: nothing to start, fire-and-forget
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			sideBySide(t)
			checkDelivery(t, c.file, c.acked, c.server)
		})
	}
}

// noServer: the driver cannot ask the server what it is (driver.Identifier): no
// broker.server in summary.json.
const noServer = `^$`

// checkDelivery runs extensions/itest/testdata/FILE.yaml (two cells, 3 s each, c2 with batch
// 4) and checks what TestDeliveryAndLatency promises for every broker mode: exactly-once
// delivery, plausible latencies, passed thresholds, nothing left behind. The brokers that
// make test starts one at a time (scripts/test.sh's phases) call it from their own test.
// acked: the mode has a broker acknowledgement, so publish latency is measured. server: a
// regular expression for what the driver says the server is (summary.json broker.server,
// also on summary.txt's first line).
func checkDelivery(t *testing.T, file string, acked bool, server string) {
	t.Helper()
	r := runScenario(t, "extensions/itest/testdata/"+file+".yaml")
	if r.code != 0 || r.summary == nil {
		t.Fatalf("exit %d, summary written: %v\n%s", r.code, r.summary != nil, r)
	}
	s := r.summary
	if !regexp.MustCompile(server).MatchString(s.Broker.Server) {
		t.Errorf("broker.server %q, want a match for %s", s.Broker.Server, server)
	} else if s.Broker.Server != "" && !strings.Contains(r.stdout, "  server: "+s.Broker.Server+"\n") {
		t.Errorf("the summary printed does not end its first line with server: %s:\n%s", s.Broker.Server, r.stdout)
	}
	if len(s.Cells) != 2 {
		t.Fatalf("want 2 cells, got %d", len(s.Cells))
	}
	for _, cell := range s.Cells {
		name := fmt.Sprintf("%s/%s", file, cell.ID)
		want := float64(cell.Rate) * 3 // duration 3s
		if math.Abs(float64(cell.Sent)+cell.DroppedIterations*float64(batchOf(cell.ID))-want) > 0.1*want {
			t.Errorf("%s: sent %d, want ~%.0f (rate × duration)", name, cell.Sent, want)
		}
		if cell.Received != cell.Sent || cell.Acked != cell.Sent {
			t.Errorf("%s: sent %d, acked %d, received %d: want all equal", name, cell.Sent, cell.Acked, cell.Received)
		}
		if cell.SentWarmup == 0 || cell.ReceivedWarmup != cell.SentWarmup {
			t.Errorf("%s: warm-up sent %d received %d", name, cell.SentWarmup, cell.ReceivedWarmup)
		}
		l := cell.Ledger
		if !cell.LedgerFinal || l.Lost != 0 || l.Duplicated != 0 || l.Failed != 0 || l.Issued != cell.Sent+cell.SentWarmup {
			t.Errorf("%s: ledger %+v (final %v), sent %d+%d", name, l, cell.LedgerFinal, cell.Sent, cell.SentWarmup)
		}
		// A busy CI machine may make k6 drop a tick now and then (the scenarios allow it:
		// delivery is under test here); more than 2% means the generator broke down, unless
		// the broker held the sends back: acknowledgements slower than brokerStall mean the
		// sends waited on the broker's connection and the ticks behind them found no VU.
		// (A fresh RocketMQ stalls so for ~1.5 s under 1 KB at 1000/s: sent/s fell to ~500
		// while its acknowledgements took 470–690 ms, and 63 iterations were dropped.)
		heldBack := acked && cell.PublishLatency.Max > brokerStall
		iters := float64(cell.Sent) / float64(batchOf(cell.ID))
		if cell.DroppedIterations > 0.02*iters && heldBack {
			t.Logf("%s: dropped %v of %.0f iterations while the broker held sends back (publish max %.0fus)", name, cell.DroppedIterations, iters, cell.PublishLatency.Max)
		} else if cell.DroppedIterations > 0.02*iters || cell.PublishErrors != 0 {
			t.Errorf("%s: dropped %v of %.0f iterations, %d publish errors", name, cell.DroppedIterations, iters, cell.PublishErrors)
		}
		checkDist(t, name+" e2e", cell.E2ELatency, int64(cell.Received))
		checkDist(t, name+" e2e intended", cell.E2EIntendedLatency, int64(cell.Received))
		// The intended send time is never after the actual one, so every percentile of
		// the intended-time latency is at least the actual-send one.
		for k, v := range cell.E2ELatency.P {
			if cell.E2EIntendedLatency.P[k] < v {
				t.Errorf("%s: intended %s %.1fus < actual %.1fus", name, k, cell.E2EIntendedLatency.P[k], v)
			}
		}
		if acked {
			checkDist(t, name+" publish", cell.PublishLatency, int64(cell.Acked))
		} else if cell.PublishLatency.Count != 0 {
			t.Errorf("%s: fire-and-forget mode reported %d publish latencies", name, cell.PublishLatency.Count)
		}
		if cell.ScheduleLag.Count == 0 {
			t.Errorf("%s: no schedule lag recorded", name)
		}
		if want := float64(cell.Rate); !heldBack && (math.Abs(cell.SenderRate-want) > 0.1*want || math.Abs(cell.ReceiverRate-want) > 0.15*want) {
			t.Errorf("%s: sender %.0f/s receiver %.0f/s, want ~%.0f/s", name, cell.SenderRate, cell.ReceiverRate, want)
		}
		if len(cell.Thresholds) < 3 { // e2e, lost, dropped iterations
			t.Errorf("%s: thresholds %+v", name, cell.Thresholds)
		}
	}
	if !s.ThresholdsOK {
		t.Errorf("thresholds failed: %+v", s.Thresholds)
	}
	if left := leftovers(t, file, s.RunID); len(left) > 0 {
		t.Errorf("the run left behind what it created: %v", left)
	}
}

// brokerStall is the publish latency (µs) past which a delivery run's dropped iterations and
// missed rates are the broker's backpressure rather than the generator's breakdown.
const brokerStall = 250e3

// Many VUs initialised at once (k6 sets up each VU's options concurrently): the run must
// complete and deliver everything it sent.
func TestManyVUs(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/nats-many-vus.yaml")
	if r.code != 0 || r.summary == nil {
		t.Fatalf("exit %d\n%s", r.code, r)
	}
	c := r.summary.Cells[0]
	if c.Sent < 20000 || c.Received != c.Sent || c.Ledger.Lost != 0 {
		t.Errorf("sent %d received %d lost %d", c.Sent, c.Received, c.Ledger.Lost)
	}
}

// batchOf is the batch of the delivery scenarios' cells (c2 sends 4 per iteration).
func batchOf(cell string) int {
	if cell == "c2" {
		return 4
	}
	return 1
}

// The default validity threshold: when k6 cannot start iterations on schedule, the run did
// not measure what it claims and fails, naming the cell.
func TestDroppedIterationsFailTheRun(t *testing.T) {
	r := runScenario(t, "extensions/itest/testdata/validity-drops.yaml")
	// Issue 45 item 6: only the generator fell behind (no other threshold failed): exit 117,
	// not a breach, said in plain words naming the cell and the fix, never k6's scenario.
	if r.code != 117 || r.summary == nil {
		t.Fatalf("exit %d, want 117\n%s", r.code, r)
	}
	lines := nonEmptyLines(r.stderr)
	if n := len(lines); n < 2 || !strings.HasPrefix(lines[n-2], "mqbench: the load generator could not hold the schedule; no broker threshold failed") ||
		!regexp.MustCompile(`^  c1: mqbench could not start [0-9,]+ of 200,000 sends on time \(the load generator fell behind, .*\): this is not the broker\. Use a bigger runner, .*raise workload\.vus`).MatchString(lines[n-1]) {
		t.Errorf("stderr does not end with the generator's shortfall in plain words:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "  FAIL  c1: mqbench could not start ") || !strings.Contains(r.stdout, "result: INVALID (") || strings.Contains(r.stdout, "c1_publish") {
		t.Errorf("console summary: no plain line, no INVALID verdict, or k6's scenario name:\n%s", r.stdout)
	}
	junit, err := os.ReadFile(filepath.Join(r.resultsDir, "junit.xml"))
	if err != nil || !strings.Contains(string(junit), `<failure message="c1: mqbench could not start `) {
		t.Errorf("junit.xml does not repeat it (%v):\n%s", err, junit)
	}
	c := r.summary.Cells[0]
	if d := c.DroppedIterations; d < 1000 {
		t.Errorf("%v dropped iterations reported, want many", d)
	}
	// Overloaded, the generator still sends after the drain ended: every message counted as
	// sent is in the ledger's accounting (sends after the close as such).
	if l := c.Ledger; l.Issued+l.IssuedAfterClose != c.Sent+c.SentWarmup+l.Failed {
		t.Errorf("ledger issued %d + after close %d != sent %d + warm-up %d + failed %d", l.Issued, l.IssuedAfterClose, c.Sent, c.SentWarmup, l.Failed)
	}
	for _, th := range r.summary.Thresholds {
		if th.Metric == "dropped_iterations{scenario:c1_publish}" && !th.OK {
			return
		}
	}
	t.Errorf("validity threshold not reported as failed: %+v", r.summary.Thresholds)
}
