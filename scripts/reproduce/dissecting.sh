#!/usr/bin/env bash
# Treat's "Dissecting Message Queues": 1,000,000 messages of 1 KB sent as fast as the client
# takes them, one sender and one receiver on the broker's machine; the figures are the sender's
# and the receiver's rates. NATS core, Kafka (acks 1) and RabbitMQ (transient, no confirms).
# The ratio: receiver ÷ sender per broker (below 1: the receiver falls behind).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/reproduce/lib.sh"
cleanup() { local rc=$? b; for b in "${bench_started[@]}"; do bench_broker_down "$b" || rc=1; done; exit "$rc"; }
bench_on_exit cleanup

repro_header "Dissecting Message Queues (Treat): 1,000,000 x 1 KB, sender vs receiver"
echo "| scenario | cell | size | sent | sender/s | receiver/s | e2e/s | publish p99 ms | e2e p99 ms | lost |"
echo "|---|---|---|---|---|---|---|---|---|---|"
ratios=()
for b in nats kafka rabbitmq; do
  repro_up "$b" || continue
  s=$(repro_run "dissecting-$b-throughput")
  repro_rate_rows "$s"
  ratios+=("$(repro_ratio "$b receiver ÷ sender" "$(cell "$s" c1 receiver_rate)" "$(cell "$s" c1 sender_rate)" "see docs/reproductions.md")")
done
echo
echo "| ratio | mqbench | study |"
echo "|---|---|---|"
printf '%s\n' "${ratios[@]}"
