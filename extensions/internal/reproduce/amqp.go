package reproduce

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// AMQP is RabbitMQ's "AMQP 1.0 Benchmarks": 1,000,000 messages of 12 bytes as fast as the
// broker takes them, one sender and one receiver, classic and quorum queues, over AMQP 1.0
// (credit 200, and 5,000 for quorum with raised flow control) and AMQP 0-9-1 as the study's
// PerfTest (mandatory, confirm window 192 / 3,000, prefetch and multi-ack 200 / 5,000). The
// broker as the study's: the management agent's metrics collector off, +S 3 schedulers,
// credit_flow_default_credit 5000,2500 for the raised-flow quorum runs. RabbitMQ is 3.10 here
// (its AMQP 1.0 plugin, not 4.0's native AMQP 1.0), so the study's 3.13 figures are the closer
// comparison for AMQP 1.0.
//
// REPRODUCE_RABBITMQ: private (default: a node of its own on 5682, started with those settings,
// restarted between the two flow-control setups, stopped at the end) or shared (the node on
// 5672 as it runs, its settings printed: the figures then describe that node, not the study's
// setup). The ratios: AMQP 1.0 ÷ 0-9-1 (classic), quorum ÷ classic, raised ÷ default flow.
func AMQP(e *Env) error {
	mode := e.Setting("REPRODUCE_RABBITMQ", "private")
	if mode != "private" && mode != "shared" {
		return fmt.Errorf("REPRODUCE_RABBITMQ must be private or shared, got %s", mode)
	}
	n := &rabbitNode{e: e, private: mode == "private"}
	defer n.stop()
	var subs []string
	if n.private { // its urls, and its management and Prometheus endpoints for broker stats
		const stats = `management_url: "http://127.0.0.1:15682", prometheus_url: "http://127.0.0.1:15693", `
		subs = []string{"127.0.0.1:5672=127.0.0.1:5682", "rabbitmq: { queue_type=rabbitmq: { " + stats + "queue_type",
			"amqp10: { address=amqp10: { " + stats + "address"}
	}
	e2e := map[string]*float64{}
	run := func(key string, scenarios ...string) error {
		for _, sc := range scenarios {
			s, _, err := e.Measure(sc, subs...)
			if err != nil {
				return err
			}
			e.Printf("%s", RateRows(s))
			k := key
			if k == "" {
				k = sc
			}
			e2e[k] = Figure(s, "c1", e2eRate)
		}
		return nil
	}

	e.Header("AMQP 1.0 Benchmarks (RabbitMQ): default flow control")
	if n.private {
		if err := n.start(""); err != nil {
			return err
		}
	} else if up, err := e.Up("rabbitmq"); err != nil || !up {
		return err
	}
	n.settings()
	e.Table(rateHead...)
	if err := run("", "rabbitmq-throughput-classic", "amqp10-rabbitmq-throughput-classic", "rabbitmq-throughput-quorum-default-flow",
		"amqp10-rabbitmq-throughput-quorum"); err != nil {
		return err
	}
	// The study's credit 5000 on a node with the default flow control (its 9,983 msg/s row).
	if err := run("credit5000-default-flow", "amqp10-rabbitmq-throughput-quorum-credit5000"); err != nil {
		return err
	}

	e.Header("AMQP 1.0 Benchmarks (RabbitMQ): raised flow control (quorum)")
	if n.private {
		n.stop()
		if err := n.start("5000,2500"); err != nil {
			return err
		}
	}
	n.settings()
	e.Table(rateHead...)
	if err := run("", "rabbitmq-throughput-quorum", "amqp10-rabbitmq-throughput-quorum-credit5000"); err != nil {
		return err
	}

	e.Printf("\n")
	e.Table("ratio, end-to-end rate", "mqbench (RabbitMQ 3.10)", "study (4.0; 3.13 for AMQP 1.0 where it ran)")
	e.RatioRow("classic: AMQP 1.0 ÷ 0-9-1", e2e["amqp10-rabbitmq-throughput-classic"], e2e["rabbitmq-throughput-classic"], "1.12 (4.0: 99,413 ÷ 88,534); 0.25 (3.13: 21,790 ÷ 88,534)")
	e.RatioRow("0-9-1: quorum (default flow) ÷ classic", e2e["rabbitmq-throughput-quorum-default-flow"], e2e["rabbitmq-throughput-classic"], "0.11 (9,931 ÷ 88,534)")
	e.RatioRow("0-9-1 quorum: raised ÷ default flow", e2e["rabbitmq-throughput-quorum"], e2e["rabbitmq-throughput-quorum-default-flow"], "7.06 (70,067 ÷ 9,931)")
	e.RatioRow("quorum, AMQP 1.0 credit 5000: raised ÷ default flow", e2e["amqp10-rabbitmq-throughput-quorum-credit5000"], e2e["credit5000-default-flow"], "8.33 (83,181 ÷ 9,983)")
	e.RatioRow("quorum, raised flow: AMQP 1.0 (credit 5000) ÷ 0-9-1", e2e["amqp10-rabbitmq-throughput-quorum-credit5000"], e2e["rabbitmq-throughput-quorum"], "1.19 (83,181 ÷ 70,067; 3.13 failed)")
	return nil
}

// rabbitNode is the RabbitMQ node the AMQP study measures: a private one on 5682 with the
// study's settings, or the shared one on 5672 as it runs.
type rabbitNode struct {
	e       *Env
	private bool
	up      bool // the private node runs
}

func (n *rabbitNode) env() []string {
	if !n.private {
		return nil
	}
	return []string{"MQBENCH_STATE=" + filepath.Join(n.e.Dir, "rabbitmq-state"), "RABBITMQ_PORT=5682", "RABBITMQ_MGMT_PORT=15682",
		"RABBITMQ_PROMETHEUS_PORT=15693", "RABBITMQ_METRICS_COLLECTOR=off", "RABBITMQ_EMULATOR_FLAGS=+S 3"}
}

// start starts the private node; flow is its credit_flow_default_credit ("" the default).
func (n *rabbitNode) start(flow string) error {
	env := n.env()
	if flow != "" {
		env = append(env, "RABBITMQ_CREDIT_FLOW="+flow)
	}
	n.up = true
	return n.e.Script(env, "brokers/start.sh", "rabbitmq")
}

func (n *rabbitNode) stop() {
	if n.up {
		_ = n.e.Script(n.env(), "brokers/stop.sh", "rabbitmq")
		n.up = false
	}
}

// settings prints the node's settings as it reports them.
func (n *rabbitNode) settings() {
	eval := func(expr string) string {
		cmd := exec.Command(filepath.Join(n.e.Repo, "scripts", "brokers", "rabbitmqctl.sh"), "-q", "eval", expr)
		cmd.Env = append(os.Environ(), n.env()...)
		cmd.Stderr = os.Stderr
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
	n.e.Printf("broker settings read back: credit_flow_default_credit %s, metrics collector off %s, schedulers %s\n\n",
		eval("application:get_env(rabbit, credit_flow_default_credit)."),
		eval("application:get_env(rabbitmq_management_agent, disable_metrics_collector)."),
		eval("erlang:system_info(schedulers)."))
}
