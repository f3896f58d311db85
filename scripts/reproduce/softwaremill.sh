#!/usr/bin/env bash
# SoftwareMill's "Evaluating persistent, replicated message queues": each system in a safe
# replicated configuration (3 nodes, a write acknowledged by a quorum), senders and receivers
# closed loops; the figures are the throughput and the p95 per minute. Kafka (acks=all, RF 3,
# min.insync.replicas 2, 64 partitions, offsets committed every 10 s), RabbitMQ (quorum queue,
# 3 members), NATS JetStream (R3). For each, the closed-loop run on one node (the same scenario
# with replication 1) and, with REPRODUCE_CLUSTER=1, on the three-node cluster
# (scripts/brokers/cluster.sh, started and stopped here), giving replicated ÷ single; with
# REPRODUCE_SEARCH=1 also the capacity search on the cluster (softwaremill-*-r3-search.yaml:
# long, a dozen steps). The cluster's nodes share this machine's cores, the study's did not.
# REPRODUCE_SYSTEMS (kafka rabbitmq nats) picks the systems.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/reproduce/lib.sh"
read -r -a systems <<<"${REPRODUCE_SYSTEMS:-kafka rabbitmq nats}"
for b in "${systems[@]}"; do
  [[ $b == kafka || $b == rabbitmq || $b == nats ]] ||
    { echo "error: REPRODUCE_SYSTEMS: no system $b (kafka, rabbitmq, nats)" >&2; exit 2; }
done
cluster= # the cluster running now (one at a time), stopped by cleanup if the section ends early
cleanup() {
  local rc=$? b
  [[ -z $cluster ]] || "$repo/scripts/brokers/cluster.sh" stop "$cluster" >&2 || rc=1
  for b in "${bench_started[@]}"; do bench_broker_down "$b" || rc=1; done
  exit "$rc"
}
bench_on_exit cleanup
# The closed-loop scenario pointed at the single node, replication 1.
single_kafka=("kafka://127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203=kafka://127.0.0.1:9092"
  "replication_factor: 3=replication_factor: 1" 'min.insync.replicas: "2"=min.insync.replicas: "1"')
single_rabbitmq=("127.0.0.1:5701=127.0.0.1:5672" "http://127.0.0.1:15701=http://127.0.0.1:15672")
single_nats=("nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303=nats://127.0.0.1:4222" "replicas: 3=replicas: 1")
declare -A single replicated found

repro_header "Evaluating persistent, replicated message queues (SoftwareMill): closed loop"
echo "| scenario | nodes | cell | size | sent | sender/s | receiver/s | e2e/s | e2e p95 per minute, ms |"
echo "|---|---|---|---|---|---|---|---|---|"
# row SUMMARY NODES: a row per cell, each minute's e2e p95 beside the rates
row() { "$repo/bin/k6" x mqbench reproduce rows closed "$1" "$2"; }
for b in "${systems[@]}"; do
  sc=softwaremill-$b-r3-closed
  if repro_up "$b"; then
    case $b in
    kafka) subs=("${single_kafka[@]}") ;;
    rabbitmq) subs=("${single_rabbitmq[@]}") ;;
    nats) subs=("${single_nats[@]}") ;;
    esac
    s=$(repro_run "$sc" "${subs[@]}")
    row "$s" 1
    single[$b]=$(cell "$s" c1 e2e_rate)
  fi
  if [[ ${REPRODUCE_CLUSTER:-0} == 1 ]]; then
    cluster=$b
    "$repo/scripts/brokers/cluster.sh" start "$b" >&2
    s=$(repro_run "$sc")
    row "$s" 3
    replicated[$b]=$(cell "$s" c1 e2e_rate)
    if [[ ${REPRODUCE_SEARCH:-0} == 1 ]]; then
      s=$(repro_run "softwaremill-$b-r3-search")
      found[$b]=$(sed -n 's/^ *"found_rate": *\([0-9]*\).*/\1/p' "$s" | head -1)   # the first cell's
    fi
    "$repo/scripts/brokers/cluster.sh" stop "$b" >&2
    cluster=
  fi
done
echo
echo "| ratio, end-to-end rate | mqbench | study |"
echo "|---|---|---|"
for b in "${systems[@]}"; do
  if [[ -n ${replicated[$b]:-} && -n ${single[$b]:-} ]]; then
    repro_ratio "$b replicated (3 nodes) ÷ single" "${replicated[$b]}" "${single[$b]}" "(no single-node runs)"
  else
    echo "| $b replicated ÷ single | not measured (REPRODUCE_CLUSTER=1 runs the cluster) | (no single-node runs) |"
  fi
done
for b in "${!found[@]}"; do echo "| $b capacity search: highest rate held (msg/s) | ${found[$b]} | see docs/reproductions.md |"; done
