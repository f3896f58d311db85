package itest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A scenario's faults against the project's three-node clusters: mqbench itself asks the
// broker which node leads the destination, kills it through cluster.sh 4 s into the measured
// period and starts it again 4 s later. In the safe configurations (NATS R3 file storage,
// a RabbitMQ quorum queue with confirms, Kafka acks=all RF 3) every acknowledged message arrives and the run passes; in the unsafe
// one (NATS R1 memory) the loss is counted and the default mq_messages_lost threshold fails
// the run. Every run records the fault. Lost is only what the broker acknowledged and never
// delivered: sends still without an answer when the drain ended are unconfirmed, messages the
// broker still holds for the consumer are held, and neither is a loss (both are logged). The
// tests (TestScenarioFaults<Broker>Cluster) sit beside their cluster's failover test, which
// shares the cluster (clusters_test.go).

type faultCase struct {
	scenario string
	safe     bool
	warmup   time.Duration // the scenario's: the kill is due at warmup + 4 s on the timeline
}

var (
	natsNode   = regexp.MustCompile(`^n[123]$`)
	kafkaNode  = regexp.MustCompile(`^[123]$`)
	rabbitNode = regexp.MustCompile(`^rabbit-[123]@localhost$`)
)

func testScenarioFaults(t *testing.T, broker string, node *regexp.Regexp, cases []faultCase) {
	k6Binary(t)
	waitClusterTurn(t, broker, 60*time.Second)
	t.Log(startCluster(t, broker))
	for _, c := range cases {
		t.Run(c.scenario, func(t *testing.T) {
			mustCluster(t, "start", broker) // all three nodes up before each run
			// The scenario's kill and start commands run only on this explicit opt-in.
			r := runScenario(t, "extensions/itest/testdata/"+c.scenario+".yaml", "--allow-fault-commands")
			if r.summary == nil || len(r.summary.Cells) != 1 {
				t.Fatalf("no summary (exit %d)\n%s", r.code, r)
			}
			cell := r.summary.Cells[0]
			l := cell.Ledger
			t.Logf("exit %d: sent %d acked %d received %d publish errors %d (the first: %s); lost %d unconfirmed %d held %d; ledger %+v; e2e max %.0fus",
				r.code, cell.Sent, cell.Acked, cell.Received, cell.PublishErrors, cell.PublishFirstError, l.Lost, l.Unconfirmed, l.Held, l, cell.E2ELatency.Max)
			// Errors come with the first one's words, and only errors.
			if (cell.PublishErrors > 0) != (cell.PublishFirstError != "") {
				t.Errorf("%d publish errors, the first: %q; want the client's words exactly when there are errors", cell.PublishErrors, cell.PublishFirstError)
			} else if cell.PublishErrors > 0 && !strings.Contains(r.stdout, fmt.Sprintf("%d publish errors, first: %s", cell.PublishErrors, cell.PublishFirstError)) {
				t.Errorf("the console does not name the first publish error %q", cell.PublishFirstError)
			}
			logHeld(t, cell.BrokerSide)
			checkFaultRecord(t, cell.Faults, node, c.warmup)
			tl := readTimeline(t, r)
			t.Logf("timeline: %s", tl.describe())
			if !cell.LedgerFinal {
				t.Errorf("ledger not final")
			}
			if c.safe {
				// Nothing the broker acknowledged went missing: lost 0, whatever was
				// unconfirmed or held.
				if r.code != 0 || !r.summary.ThresholdsOK || l.Lost != 0 {
					t.Errorf("safe configuration: exit %d, thresholds ok %v, lost %d (unconfirmed %d, held %d); want 0, true, 0\n%s", r.code, r.summary.ThresholdsOK, l.Lost, l.Unconfirmed, l.Held, r)
				}
				// The failover shows: failed sends while there was no leader, or messages held back.
				if cell.PublishErrors == 0 && cell.E2ELatency.Max < 200e3 {
					t.Errorf("a leader kill left no trace: no publish error, e2e max %.0fus", cell.E2ELatency.Max)
				}
				tl.resumedAtTheEnd(t, 4*time.Second, cell.Rate)
				return
			}
			// R1 memory: the killed leader took acknowledged messages with it; those are lost
			// (the broker cannot hold what it no longer has).
			if r.code != 99 || r.summary.ThresholdsOK || l.Lost == 0 {
				t.Errorf("unsafe configuration: exit %d, thresholds ok %v, lost %d (unconfirmed %d, held %d); want 99, false, > 0\n%s", r.code, r.summary.ThresholdsOK, l.Lost, l.Unconfirmed, l.Held, r)
			}
		})
	}
}

// checkFaultRecord: one kill of the leader, then its start, both done, 4 s apart, the kill
// 4 s into the measured period.
func checkFaultRecord(t *testing.T, fs []fault, node *regexp.Regexp, warmup time.Duration) {
	t.Helper()
	t.Logf("faults: %+v", fs)
	if len(fs) != 2 || fs[0].Action != "kill" || fs[1].Action != "start" {
		t.Fatalf("faults recorded: %+v; want a kill and a start", fs)
	}
	for _, f := range fs {
		if f.Asked != "leader" || !node.MatchString(f.Node) || f.Error != "" {
			t.Errorf("fault %+v: want the leader resolved to a node (%s), no error", f, node)
		}
	}
	if fs[0].Node != fs[1].Node {
		t.Errorf("killed %s but started %s", fs[0].Node, fs[1].Node)
	}
	if due := (warmup + 4*time.Second).Seconds(); fs[0].T < due-0.1 || fs[0].T > due+1 {
		t.Errorf("kill at t=%.2fs, want %.0f s (warm-up + at 4 s)", fs[0].T, due)
	}
	if d := fs[1].T - fs[0].T; d < 3.9 || d > 5 {
		t.Errorf("start %.2fs after the kill, want 4 s (restart_after)", d)
	}
}

// logHeld logs the broker's last backlog sample beside mqbench's own (acknowledged − received):
// when a run counts a message lost, whether the broker still held it at the end of the drain
// (JetStream: num_pending + num_ack_pending; a delivery lost on the way waits there for its
// redelivery) or not.
func logHeld(t *testing.T, bs *brokerSide) {
	t.Helper()
	if bs == nil || len(bs.Points) == 0 {
		t.Logf("broker side: no samples")
		return
	}
	p := bs.Points[len(bs.Points)-1]
	n := func(v *int64) string {
		if v == nil {
			return "unknown"
		}
		return strconv.FormatInt(*v, 10)
	}
	t.Logf("broker side at t=%.0fs: backlog %s, mqbench's backlog %s (samples %d, errors %d %s)",
		p.T, n(p.Backlog), n(p.ClientBacklog), bs.Samples, bs.Errors, bs.FirstError)
}
