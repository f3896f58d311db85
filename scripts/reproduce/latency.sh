#!/usr/bin/env bash
# Treat's "Benchmarking Message Queue Latency": end-to-end latency of the five standard cells
# (256 B and 1 KB at 3,000 msg/s, 5 KB at 2,000, 1 KB at 20,000 over 25 connections, 1 MB at
# 100), open model, for NATS core, Redis pub/sub and RabbitMQ, the latter both as the study ran
# it (transient queue, no confirms, auto-ack) and durable with confirms. The ratios: RabbitMQ
# durable ÷ transient and RabbitMQ ÷ NATS at p99, 1 KB at 3,000 msg/s (cell c2).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/reproduce/lib.sh"
cleanup() { local rc=$? b; for b in "${bench_started[@]}"; do bench_broker_down "$b" || rc=1; done; exit "$rc"; }
bench_on_exit cleanup

repro_header "Benchmarking Message Queue Latency (Treat): e2e latency, five standard cells"
echo "| scenario | cell | size | rate | p50 ms | p99 ms | p99.99 ms | mean ± stddev ms | held |"
echo "|---|---|---|---|---|---|---|---|---|"
declare -A p99
for pair in nats:nats-latency-matrix redis:redis-latency-matrix rabbitmq:rabbitmq-latency-matrix-transient rabbitmq:rabbitmq-latency-matrix; do
  broker=${pair%%:*} sc=${pair#*:}
  repro_up "$broker" || continue
  s=$(repro_run "$sc")
  repro_latency_rows "$s"
  p99[$sc]=$(cell "$s" c2 e2e_p99_us)
done
echo
echo "| ratio, e2e p99 at 1 KB / 3,000 msg/s | mqbench | study |"
echo "|---|---|---|"
[[ -z ${p99[rabbitmq-latency-matrix]:-} || -z ${p99[rabbitmq-latency-matrix-transient]:-} ]] ||
  repro_ratio "RabbitMQ durable + confirms ÷ transient" "${p99[rabbitmq-latency-matrix]}" "${p99[rabbitmq-latency-matrix-transient]}" "(transient only)"
[[ -z ${p99[rabbitmq-latency-matrix-transient]:-} || -z ${p99[nats-latency-matrix]:-} ]] ||
  repro_ratio "RabbitMQ transient ÷ NATS core" "${p99[rabbitmq-latency-matrix-transient]}" "${p99[nats-latency-matrix]}" "see docs/reproductions.md"
[[ -z ${p99[redis-latency-matrix]:-} || -z ${p99[nats-latency-matrix]:-} ]] ||
  repro_ratio "Redis ÷ NATS core" "${p99[redis-latency-matrix]}" "${p99[nats-latency-matrix]}" "see docs/reproductions.md"
