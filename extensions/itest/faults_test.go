package itest

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// The broker process is SIGKILLed in the middle of a cell and started again: the run must go
// on, reconnect, finish the cell, count the damage (publish errors, losses, delays) in a
// ledger that adds up, write its results, and let the loss threshold decide the exit code.
//
// Each broker is a private instance on its own ports, and the runs are slow (200 msg/s): the
// time goes to waiting for brokers to die and come back, so the families run side by side in
// the waiting tier (waiting_test.go), and a broker's scenarios run one after the other on one
// private instance. The kill is timed on the cell's own clock and "resumed" on its timeline,
// so a loaded machine moves neither.
func TestBrokerKilledAndRestartedMidRun(t *testing.T) {
	k6Binary(t)
	t.Parallel()
	// One per broker family, each on its own private instance, in the waiting tier
	// (waiting_test.go): expected is how long each took there, so the longest (90 s Pulsar,
	// 70 s RocketMQ, 2 × 40 s RabbitMQ cells) start first. The phased brokers' own checks are
	// in their files (killPulsar, …); their private instances need only the installs.
	families := []struct {
		name     string
		expected time.Duration
		run      func(t *testing.T)
	}{
		{"pulsar", 130 * time.Second, killPulsar},
		{"rocketmq", 110 * time.Second, killRocketMQ},
		// The management, Prometheus and (derived: AMQP port + 20000 = 35673) Erlang
		// distribution ports must differ from the shared instance's too. AMQP 0-9-1, then
		// AMQP 1.0 (the amqp10 driver) on the same RabbitMQ recipe.
		{"rabbitmq", 110 * time.Second, outages("rabbitmq", []string{"RABBITMQ_PORT=15673", "RABBITMQ_MGMT_PORT=15674", "RABBITMQ_PROMETHEUS_PORT=15694"},
			outage{"fault-rabbitmq", 5 * time.Second}, outage{"fault-amqp10-rabbitmq", 5 * time.Second})},
		// 29092-29094 rather than 19092-19094, which people use for Kafka experiments by hand.
		{"kafka", 75 * time.Second, outages("kafka", []string{"KAFKA_PORT=29092", "KAFKA_CONTROLLER_PORT=29093", "KAFKA_SASL_PORT=29094"},
			outage{"fault-kafka", 5 * time.Second})},
		{"artemis", 50 * time.Second, outages("artemis", []string{"ARTEMIS_PORT=25673", "ARTEMIS_CORE_PORT=25617"}, outage{"fault-artemis", 5 * time.Second})},
		{"activemq", 45 * time.Second, outages("activemq", []string{"ACTIVEMQ_PORT=25674", "ACTIVEMQ_OPENWIRE_PORT=25616"}, outage{"fault-activemq", 5 * time.Second})},
		{"redis", 34 * time.Second, outages("redis", []string{"REDIS_PORT=16379"}, outage{"fault-redis-streams", 3 * time.Second}, outage{"fault-redis-pubsub", 3 * time.Second})},
		{"sqs", 30 * time.Second, killSQS},
		{"mongodb", 28 * time.Second, killMongo},
		{"postgres", 27 * time.Second, killPostgres},
		{"nats", 21 * time.Second, outages("nats", []string{"NATS_PORT=14222", "NATS_MONITOR_PORT=18222"}, outage{"fault-nats", 3 * time.Second})},
	}
	for _, f := range families {
		t.Run(f.name, func(t *testing.T) {
			waitTurn(t, f.expected)
			f.run(t)
		})
	}
}

// outage is one kill-and-restart run of a scenario on a broker's private instance.
type outage struct {
	scenario string
	// tail: "resumed after the restart" is judged on the cell's timeline (messages per second
	// in summary.json) over its last tail, or what is left of it after the restart; see
	// resumedAtTheEnd.
	tail time.Duration
}

// outages runs each scenario in turn on one private instance of broker (on ports): a kill 3 s
// into its measured period, a restart 2 s later, the checks every outage must pass.
func outages(broker string, ports []string, runs ...outage) func(t *testing.T) {
	return func(t *testing.T) {
		b := startPrivate(t, broker, ports...)
		for _, c := range runs {
			t.Run(c.scenario, func(t *testing.T) {
				// warm-up 1 s, then ~3 s of the measured period before the kill
				r := runWithOutage(t, c.scenario, 4*time.Second, b)
				checkExitFollowsThresholds(t, r)
				tl := checkOutage(t, r)
				cell := r.summary.Cells[0]
				// A restart takes from 2 s (NATS, Redis) to 20 s (RabbitMQ, Kafka; more on a
				// loaded machine), a large part of the cell, and Kafka's "sent" counts every
				// record handed to the client, including those that timed out while the broker
				// was down: the totals say little about whether the run resumed. The timeline
				// does: at the end of the measured period messages are sent at the cell's rate
				// again and they arrive.
				tl.resumedAtTheEnd(t, c.tail, cell.Rate)
			})
		}
	}
}

// describe says when, in the measured period, nothing was received (the longest such gap),
// and how much was sent and received before, during and after it.
func (tl timeline) describe() string {
	from, to := tl.WarmupS, tl.WarmupS+tl.DurationS
	gapStart, gapLen, cur := -1.0, 0.0, 0.0
	for _, p := range tl.Points {
		if p.T < from || p.T >= to {
			continue
		}
		if p.Received == 0 {
			cur += tl.StepS
			if cur > gapLen {
				gapLen, gapStart = cur, p.T+tl.StepS-cur
			}
		} else {
			cur = 0
		}
	}
	if gapStart < 0 {
		return fmt.Sprintf("no second of the measured %.0f s without deliveries", tl.DurationS)
	}
	var sentBefore, recvBefore, sentDuring, recvDuring, sentAfter, recvAfter uint64
	for _, p := range tl.Points {
		switch {
		case p.T < gapStart:
			sentBefore, recvBefore = sentBefore+p.Sent, recvBefore+p.Received
		case p.T < gapStart+gapLen:
			sentDuring, recvDuring = sentDuring+p.Sent, recvDuring+p.Received
		default:
			sentAfter, recvAfter = sentAfter+p.Sent, recvAfter+p.Received
		}
	}
	return fmt.Sprintf("no deliveries for %.0f s (t=%.0f…%.0f s of the cell, measured %.0f…%.0f s); sent/received before %d/%d, during %d/%d, after %d/%d (drain included)",
		gapLen, gapStart, gapStart+gapLen, from, to, sentBefore, recvBefore, sentDuring, recvDuring, sentAfter, recvAfter)
}

// reconnectAllowance is how long after the broker is back (its start.sh returned) producers
// and consumers may take to reconnect before they are expected at the cell's rate again
// (RabbitMQ's were back at the full rate within 1.6 s of its boot ending).
const reconnectAllowance = time.Second

// minResumeWindow is the shortest stretch of the measured period after the reconnect
// allowance on which "resumed" is judged: one timeline slot.
const minResumeWindow = time.Second

// resumedAtTheEnd: in the last tail of the measured period, or in what is left of it once the
// broker is back and the reconnect allowance has passed when that is shorter (a restart's
// duration depends on the machine's load: RabbitMQ took 11-19 s here), the producers sent at
// least half the cell's rate (Sends succeed again), and what they sent then arrived by the end
// of the drain (the consumers are back; duplicates of older messages may add to it).
func (tl timeline) resumedAtTheEnd(t *testing.T, tail time.Duration, rate int) {
	t.Helper()
	end := tl.WarmupS + tl.DurationS
	from := end - tail.Seconds()
	if tl.backS > 0 {
		from = max(from, math.Ceil(tl.backS+reconnectAllowance.Seconds()))
	}
	if end-from < minResumeWindow.Seconds() {
		t.Fatalf("the broker was back %.1f s into the cell, %.1f s before the end of its measured period: too late to judge whether the run resumed (want %v after a %v reconnect allowance; lengthen the cell)",
			tl.backS, end-tl.backS, minResumeWindow, reconnectAllowance)
	}
	var sent, recv uint64
	for _, p := range tl.Points {
		if p.T >= from && p.T < end {
			sent += p.Sent
		}
		if p.T >= from {
			recv += p.Received
		}
	}
	t.Logf("t=%.0f…%.0f s of the cell (measured until %.0f s, broker back at %.1f s): sent %d, received %d (until the end of the drain)", from, end, end, tl.backS, sent, recv)
	if want := uint64(float64(rate) * (end - from) / 2); sent < want {
		t.Errorf("sent %d in t=%.0f…%.0f s of the cell, want ≥ %d: the producers did not resume after the restart", sent, from, end, want)
	}
	if recv*10 < sent*9 {
		t.Errorf("received %d of the %d sent from t=%.0f s: the consumers did not resume after the restart", recv, sent, from)
	}
}
