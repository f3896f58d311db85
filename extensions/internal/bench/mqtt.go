package bench

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/mqbench/xk6-mqbench/internal/ladder"
)

// MQTT: Mosquitto, 1 KB messages, one publisher and one subscriber on one topic, at QoS 0
// and at QoS 1 (publish and subscription alike): mqbench (bin/k6, the mqtt driver) beside
// mqttfloor (the same open-model load on the same paho clients, no k6) and beside
// Mosquitto's own clients (mosquitto_pub -l fed the same schedule, mosquitto_sub counting:
// mosquittoPeer), same broker, same session:
//  1. end-to-end p50 / p99 at 1,000 msg/s, mqbench and mqttfloor (BENCH_MQTT_LATENCY_DURATION,
//     10s, after a 2 s warm-up)
//  2. the highest rate held, by the nats section's rule for all three (nothing lost,
//     everything received, never LateMax late; mqbench also no dropped iteration, its VU
//     pool sized for LateMax; the peer also arrivals at 98 % of the rate: mosquittoPeerProbe),
//     over BENCH_MQTT_DURATION (20s) a rung, one rate at a time for all three, each stopping
//     at its first rung not held
//
// MOSQUITTO_PORT (1883) is the broker's port. BENCH_MQTT_PROTOCOL ("5", or "3.1.1") is the
// protocol of mqbench and mqttfloor (the peer's -V alike); BENCH_MQTT_RATES_QOS0 and
// BENCH_MQTT_RATES_QOS1 override the ladders. Starts mosquitto with set_tcp_nodelay (else
// the broker's Nagle delays meet the subscriber's delayed ACKs and QoS 0 e2e is ~20-40 ms
// whatever the client) and stops it at the end if it started it.
func MQTT(e *Env) error {
	duration, err := e.Seconds("BENCH_MQTT_DURATION", "20s")
	if err != nil {
		return err
	}
	latency, err := e.Seconds("BENCH_MQTT_LATENCY_DURATION", "10s")
	if err != nil {
		return err
	}
	protocol := e.Setting("BENCH_MQTT_PROTOCOL", "5")
	if protocol != "5" && protocol != "3.1.1" {
		return fmt.Errorf(`BENCH_MQTT_PROTOCOL must be "5" or "3.1.1", got %s`, protocol)
	}
	rates := map[int][]int{}
	for qos, def := range map[int][]int{0: mqttRates(5000), 1: mqttRates(2000)} {
		if rates[qos], err = e.Ints(fmt.Sprintf("BENCH_MQTT_RATES_QOS%d", qos), def); err != nil {
			return err
		}
	}
	if _, err := exec.LookPath("mosquitto_pub"); err != nil {
		return fmt.Errorf("mosquitto_pub missing (scripts/brokers/start.sh mosquitto installs mosquitto-clients)")
	}
	addr := "127.0.0.1:" + e.Setting("MOSQUITTO_PORT", "1883")
	before, _ := e.BrokerStatus("mosquitto")
	if err := mosquittoUp(e); err != nil {
		return err
	}
	defer func() { _ = e.BrokerDown("mosquitto") }()
	floor, err := e.mqttfloor(addr, protocol)
	if err != nil {
		return err
	}
	bv, cv := mosquittoVersions()
	e.Printf("== MQTT %s, Mosquitto %s on %s, 1 KB, 1 publisher + 1 subscriber: mqbench (k6) vs mqttfloor (plain %s) vs mosquitto_pub/mosquitto_sub %s (libmosquitto), %d cores\n",
		protocol, bv, addr, mqttLibrary(protocol), cv, Cores())
	if before == "running" {
		e.Printf("(mosquitto was running before this section: its own configuration; without set_tcp_nodelay QoS 0 latency is the broker's Nagle delay)\n")
	}
	type qosFigures struct {
		k, f []float64 // e2e p50, p99, from-intended p50 at 1,000 msg/s
		best []ladder.Best
		top  int
	}
	var got [2]qosFigures
	for _, qos := range []int{0, 1} {
		broker := fmt.Sprintf(`{ type: mqtt, url: "mqtt://%s", mqtt: { protocol: "%s", qos: %d, share: false } }`, addr, protocol, qos)
		lat := []string{"e2e_p50_us", "e2e_p99_us", "e2e_intended_p50_us"}
		k, err := e.FixedRate(fmt.Sprintf("mqtt-qos%d-latency-1000", qos), broker, 1000, latency, lat...)
		if err != nil {
			return err
		}
		f, err := floor.fields(qos, 1000, 1, latency, lat...)
		if err != nil {
			return err
		}
		e.Printf("\n-- QoS %d: ladder, %s a rung (batch: rate / 2000, the same for all three)\n", qos, Secs(duration))
		e.Printf("%-8s %-6s %-44s %-28s %s\n", "rate", "batch", "mqbench: sent/s recv/s dropped lost late-max", "mqttfloor: sent/s recv/s late", "mosquitto_pub: sent/s recv/s late")
		rung, err := Step(fmt.Sprintf("mqtt-qos%d-rate", qos), broker, "1KB", duration)
		if err != nil {
			return err
		}
		rung.LateVUs = true
		mq := &ladder.Mqbench{Step: rung, K6: e.K6, Dir: e.Dir, Judge: []string{"on-time"}, Columns: []string{"sent/s", "recv/s", "dropped", "lost", "late-max"}}
		peer := mosquittoPeerProbe{mosquittoPeer{addr: addr, protocol: protocol, qos: qos, duration: duration, dir: e.Dir}}
		best, err := e.Ladder(rates[qos], 2000, []ladder.Probe{mq, mqttFloorProbe{floor, qos, duration}, peer}, "%-8s %-6s %-44s %-28s %s")
		if err != nil {
			return err
		}
		got[qos] = qosFigures{k: k, f: f, best: best, top: rates[qos][len(rates[qos])-1]}
	}

	t := e.Table([3]int{50, 16, 16}, "mqttfloor")
	for qos, g := range got {
		for i, what := range []string{"e2e p50", "e2e p99", "e2e p50 from intended"} {
			t.Row(fmt.Sprintf("QoS %d %s at 1,000 msg/s, us", qos, what), fmt.Sprintf("%.1f", g.k[i]), fmt.Sprintf("%.1f", g.f[i]), ratioX(g.k[i], g.f[i]))
		}
		kb, fb, pb := g.best[0].Rate, g.best[1].Rate, g.best[2].Rate
		t.Row(fmt.Sprintf("QoS %d highest rate held, msg/s", qos), Ceiling(kb, g.top), Ceiling(fb, g.top), ratioX(float64(kb), float64(fb)))
		t.Row(fmt.Sprintf("QoS %d highest rate held, vs mosquitto_pub", qos), Ceiling(kb, g.top), Ceiling(pb, g.top)+" m_pub", ratioX(float64(kb), float64(pb)))
	}
	e.Printf(`Open model for all three: messages due at start + i x period, sent when due, a late one
at once. Held: everything sent received (nothing lost), the schedule never %s behind (mqbench:
and no dropped iteration). mqbench and mqttfloor publish on one connection and subscribe
on another at the same QoS (mqbench share: false, a plain subscription like the others';
QoS 1 publishes are not waited on one by one: the broker's receive maximum bounds what is
in flight). mqttfloor is the same clients without k6 or mqbench (paho.golang for MQTT 5,
paho.mqtt.golang for 3.1.1). mosquitto_pub -l publishes each line this program writes to it
at the due time (one write per tick into a 1 MiB pipe); mosquitto_sub prints each arrival,
which this program counts. mosquitto_pub queues what it read without bound, so it is held
only with arrivals at 98 %% of the rate or more as well.
(k6 logs and summaries, the peer's stderr: %s)
`, LateMax, e.Dir)
	for qos, g := range got {
		kb, fb := g.best[0].Rate, g.best[1].Rate
		what := fmt.Sprintf("Mosquitto QoS %d, highest rate held over %s, msg/s (mqttfloor, plain %s)", qos, Secs(duration), mqttLibrary(protocol))
		if err := e.Headline("mqtt", what, Ceiling(kb, g.top), Ceiling(fb, g.top)+" mqttfloor", ratioX(float64(kb), float64(fb))); err != nil {
			return err
		}
		// Latency: the ratio above 1 is mqbench's extra time, the part k6 and the ledger add.
		what = fmt.Sprintf("Mosquitto QoS %d, e2e p50 / p99 at 1,000 msg/s, us, lower is better (mqttfloor, plain %s)", qos, mqttLibrary(protocol))
		if err := e.Headline("mqtt", what, fmt.Sprintf("%.1f / %.1f", g.k[0], g.k[1]), fmt.Sprintf("%.1f / %.1f mqttfloor", g.f[0], g.f[1]),
			ratioX(g.k[0], g.f[0])+" / "+ratioX(g.k[1], g.f[1])); err != nil {
			return err
		}
	}
	return nil
}

// mqttRates is the ladder from the first of its rates at or above from: steps of 5,000 to
// 30,000, then uneven ones to 100,000, then 1.25 times the last (rounded down to 5,000) up
// to 1,000,000 (only so that it is finite).
func mqttRates(from int) []int {
	all := []int{2000, 5000, 10000, 15000, 20000, 25000, 30000, 40000, 50000, 60000, 80000, 100000}
	for all[len(all)-1] < 1000000 {
		all = append(all, all[len(all)-1]*125/100/5000*5000)
	}
	for i, r := range all {
		if r >= from {
			return all[i:]
		}
	}
	return nil
}

// ratioX is Ratio with its "x", or "-" alone when b is 0 (a tool that held no rung).
func ratioX(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return Ratio(a, b) + "x"
}

// mqttLibrary is the client library mqbench's driver and mqttfloor use for protocol.
func mqttLibrary(protocol string) string {
	if protocol == "3.1.1" {
		return "paho.mqtt.golang"
	}
	return "paho.golang"
}

// mosquittoUp starts mosquitto (unless it runs) with set_tcp_nodelay added to its
// configuration (scripts/brokers/mosquitto.sh's MOSQUITTO_CONF_EXTRA).
func mosquittoUp(e *Env) error {
	extra, had := os.LookupEnv("MOSQUITTO_CONF_EXTRA")
	if !strings.Contains(extra, "set_tcp_nodelay") {
		_ = os.Setenv("MOSQUITTO_CONF_EXTRA", strings.TrimSpace(extra+"\nset_tcp_nodelay true"))
		defer func() {
			if had {
				_ = os.Setenv("MOSQUITTO_CONF_EXTRA", extra)
			} else {
				_ = os.Unsetenv("MOSQUITTO_CONF_EXTRA")
			}
		}()
	}
	if err := e.BrokerUp("mosquitto"); err != nil {
		return fmt.Errorf("%v (a Mosquitto these scripts did not start on its port? MOSQUITTO_PORT=N runs the section on another)", err)
	}
	return nil
}
