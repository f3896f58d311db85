#!/usr/bin/env bash
# RabbitMQ's "AMQP 1.0 Benchmarks": 1,000,000 messages of 12 bytes as fast as the broker takes
# them, one sender and one receiver, classic and quorum queues, over AMQP 1.0 (credit 200, and
# 5,000 for quorum with raised flow control) and AMQP 0-9-1 as the study's PerfTest (mandatory,
# confirm window 192 / 3,000, prefetch and multi-ack 200 / 5,000). The broker as the study's:
# the management agent's metrics collector off, +S 3 schedulers, credit_flow_default_credit
# 5000,2500 for the raised-flow quorum runs. RabbitMQ is 3.10 here (its AMQP 1.0 plugin, not
# 4.0's native AMQP 1.0), so the study's 3.13 figures are the closer comparison for AMQP 1.0.
# REPRODUCE_RABBITMQ: private (default: a node of its own on 5682, started with those settings,
# restarted between the two flow-control setups, stopped at the end) or shared (the node on
# 5672 as it runs, its settings printed: the figures then describe that node, not the study's
# setup). The ratios: AMQP 1.0 ÷ 0-9-1 (classic), quorum ÷ classic, raised ÷ default flow.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/reproduce/lib.sh"
mode=${REPRODUCE_RABBITMQ:-private}
[[ $mode == private || $mode == shared ]] || { echo "error: REPRODUCE_RABBITMQ must be private or shared, got $mode" >&2; exit 2; }
node_env=(MQBENCH_STATE="$repro_dir/rabbitmq-state" RABBITMQ_PORT=5682 RABBITMQ_MGMT_PORT=15682
  RABBITMQ_PROMETHEUS_PORT=15693 RABBITMQ_METRICS_COLLECTOR=off "RABBITMQ_EMULATOR_FLAGS=+S 3")
node_up=0
private_node() { # private_node start|stop [FLOW]: the private node, FLOW = credit_flow_default_credit
  if [[ $1 == start ]]; then
    env "${node_env[@]}" ${2:+RABBITMQ_CREDIT_FLOW=$2} "$repo/scripts/brokers/start.sh" rabbitmq >&2
    node_up=1
  elif ((node_up)); then
    env "${node_env[@]}" "$repo/scripts/brokers/stop.sh" rabbitmq >&2 || true
    node_up=0
  fi
}
cleanup() {
  local rc=$? b
  private_node stop
  for b in "${bench_started[@]}"; do bench_broker_down "$b" || rc=1; done
  exit "$rc"
}
bench_on_exit cleanup
# A private node's urls, and its management and Prometheus endpoints for broker stats.
subs=()
if [[ $mode == private ]]; then
  subs=("127.0.0.1:5672=127.0.0.1:5682"
    "rabbitmq: { queue_type=rabbitmq: { management_url: \"http://127.0.0.1:15682\", prometheus_url: \"http://127.0.0.1:15693\", queue_type"
    "amqp10: { address=amqp10: { management_url: \"http://127.0.0.1:15682\", prometheus_url: \"http://127.0.0.1:15693\", address")
fi
ctl() { if [[ $mode == private ]]; then env "${node_env[@]}" "$repo/scripts/brokers/rabbitmqctl.sh" "$@"; else "$repo/scripts/brokers/rabbitmqctl.sh" "$@"; fi; }
settings() {
  echo "broker settings read back: credit_flow_default_credit $(ctl -q eval 'application:get_env(rabbit, credit_flow_default_credit).'), metrics collector off $(ctl -q eval 'application:get_env(rabbitmq_management_agent, disable_metrics_collector).'), schedulers $(ctl -q eval 'erlang:system_info(schedulers).')"
  echo
}
declare -A e2e
run() { # run SCENARIO [KEY]: KEY (default: SCENARIO) names its rate in e2e
  local s
  s=$(repro_run "$1" "${subs[@]}")
  repro_rate_rows "$s"
  e2e[${2:-$1}]=$(cell "$s" c1 e2e_rate)
}
table_head() {
  echo "| scenario | cell | size | sent | sender/s | receiver/s | e2e/s | publish p99 ms | e2e p99 ms | lost |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
}

repro_header "AMQP 1.0 Benchmarks (RabbitMQ): default flow control"
if [[ $mode == private ]]; then private_node start; else repro_up rabbitmq || exit 0; fi
settings
table_head
for sc in rabbitmq-throughput-classic amqp10-rabbitmq-throughput-classic rabbitmq-throughput-quorum-default-flow amqp10-rabbitmq-throughput-quorum; do run "$sc"; done
# The study's credit 5000 on a node with the default flow control (its 9,983 msg/s row).
run amqp10-rabbitmq-throughput-quorum-credit5000 credit5000-default-flow

repro_header "AMQP 1.0 Benchmarks (RabbitMQ): raised flow control (quorum)"
if [[ $mode == private ]]; then private_node stop; private_node start 5000,2500; fi
settings
table_head
for sc in rabbitmq-throughput-quorum amqp10-rabbitmq-throughput-quorum-credit5000; do run "$sc"; done

echo
echo "| ratio, end-to-end rate | mqbench (RabbitMQ 3.10) | study (4.0; 3.13 for AMQP 1.0 where it ran) |"
echo "|---|---|---|"
repro_ratio "classic: AMQP 1.0 ÷ 0-9-1" "${e2e[amqp10-rabbitmq-throughput-classic]}" "${e2e[rabbitmq-throughput-classic]}" "1.12 (4.0: 99,413 ÷ 88,534); 0.25 (3.13: 21,790 ÷ 88,534)"
repro_ratio "0-9-1: quorum (default flow) ÷ classic" "${e2e[rabbitmq-throughput-quorum-default-flow]}" "${e2e[rabbitmq-throughput-classic]}" "0.11 (9,931 ÷ 88,534)"
repro_ratio "0-9-1 quorum: raised ÷ default flow" "${e2e[rabbitmq-throughput-quorum]}" "${e2e[rabbitmq-throughput-quorum-default-flow]}" "7.06 (70,067 ÷ 9,931)"
repro_ratio "quorum, AMQP 1.0 credit 5000: raised ÷ default flow" "${e2e[amqp10-rabbitmq-throughput-quorum-credit5000]}" "${e2e[credit5000-default-flow]}" "8.33 (83,181 ÷ 9,983)"
repro_ratio "quorum, raised flow: AMQP 1.0 (credit 5000) ÷ 0-9-1" "${e2e[amqp10-rabbitmq-throughput-quorum-credit5000]}" "${e2e[rabbitmq-throughput-quorum]}" "1.19 (83,181 ÷ 70,067; 3.13 failed)"
