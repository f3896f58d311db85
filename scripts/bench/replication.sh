#!/usr/bin/env bash
# What replication costs: each broker's "safe" configuration on one node (R1, the project's
# single-server broker) and on the project's three-node cluster (R3, scripts/brokers/cluster.sh),
# 1 KB messages, one producer and one consumer, in the same session:
#   1. p95 publish latency and p95 end-to-end latency at 1,000 msg/s
#   2. the highest rate held over BENCH_DURATION (60 s: a rate is held only over a sustained
#      window) from BENCH_RATES: nothing lost, everything received, no dropped iteration and
#      the schedule never 100 ms behind, with a VU pool for 100 ms of iterations (the
#      ladder's on-time rule with --late-vus, as the NATS section). Three broker nodes share 2 cores with k6 here:
#      R3 delays ticks by tens of ms (zero lateness was never held at 1,000 msg/s).
# Safe means: NATS JetStream file storage (replicas 1 / 3); RabbitMQ quorum queue, persistent
# messages, confirms (one member / three); Kafka acks=all, idempotent (RF 1 with
# min.insync.replicas 1 / RF 3 with 2). One broker runs at a time: the single node is stopped
# (if this script started it) before its cluster starts, and the cluster is stopped after.
# BENCH_REPLICATION picks brokers (default: every broker with a cluster recipe).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
duration=${BENCH_DURATION:-60s}
read -r -a rates <<<"${BENCH_RATES:-1000 2000 4000 8000 16000}"
cluster() { "$repo/scripts/brokers/cluster.sh" "$@"; }

# safe BROKER R -> the scenario's broker block
safe() {
  case $1:$2 in
    nats:1) echo '{ type: nats, url: "nats://127.0.0.1:4222", nats: { mode: jetstream, storage: file, replicas: 1 } }' ;;
    nats:3) echo '{ type: nats, url: "nats://127.0.0.1:4301,nats://127.0.0.1:4302,nats://127.0.0.1:4303", nats: { mode: jetstream, storage: file, replicas: 3 } }' ;;
    rabbitmq:1) echo '{ type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5672/", rabbitmq: { queue_type: quorum, persistent: true, confirms: true, prefetch: 200 } }' ;;
    rabbitmq:3) echo '{ type: rabbitmq, url: "amqp://guest:guest@127.0.0.1:5701/", rabbitmq: { queue_type: quorum, persistent: true, confirms: true, prefetch: 200 } }' ;;
    kafka:1) echo '{ type: kafka, url: "kafka://127.0.0.1:9092", kafka: { acks: all, idempotent: true, topic: { partitions: 1, replication_factor: 1, configs: { min.insync.replicas: "1" } } } }' ;;
    kafka:3) echo '{ type: kafka, url: "kafka://127.0.0.1:9201,127.0.0.1:9202,127.0.0.1:9203", kafka: { acks: all, idempotent: true, topic: { partitions: 1, replication_factor: 3, configs: { min.insync.replicas: "2" } } } }' ;;
  esac
}

# measure BROKER R: prints "p95publish_us p95e2e_us best_rate": the ladder from 1,000 msg/s
# (on time, the NATS section's rule), the p95s from its first rung (when 1,000 is not held, no
# higher rate is tried).
measure() {
  local b=$1 r=$2 s p95p p95e rate ladder=(1000)
  for rate in "${rates[@]}"; do if ((rate > 1000)); then ladder+=("$rate"); fi; done
  bench_ladder --name "repl-$b-r$r" --broker "$(safe "$b" "$r")" --duration "$duration" --late-vus --rule on-time \
    --per-batch 2000 "${ladder[@]}" >&2
  s=$(ls -t "$bench_dir/results/repl-$b-r$r-1000"/*/summary.json | head -1)
  p95p=$(figure "$s" publish_p95_us)
  p95e=$(figure "$s" e2e_p95_us)
  echo "$p95p $p95e ${bench_best[0]}"
}

us() { awk -v v="$1" 'BEGIN { if (v >= 1000) printf "%.2f ms\n", v / 1000; else printf "%.0f us\n", v }'; }

brokers=()
for b in ${BENCH_REPLICATION:-nats rabbitmq kafka}; do
  [[ -e $repo/scripts/brokers/cluster/$b.sh ]] && brokers+=("$b")
done
echo "== replication: safe R1 (one node) vs R3 (three-node cluster), 1 KB, $duration per rate, $(nproc) cores"
printf '%-9s %-4s %14s %14s %16s\n' broker repl "p95 publish" "p95 e2e" "highest held/s"
heads=()   # per broker: name, R3 and R1 highest held, ratio
for b in "${brokers[@]}"; do
  bench_broker_up "$b"
  read -r p1 e1 h1 <<<"$(measure "$b" 1)"
  bench_broker_down "$b"
  cluster start "$b" >&2
  read -r p3 e3 h3 <<<"$(measure "$b" 3)"
  cluster stop "$b" >&2
  printf '%-9s %-4s %14s %14s %16s\n' "$b" R1 "$(us "$p1")" "$(us "$e1")" "$h1"
  printf '%-9s %-4s %14s %14s %16s\n' "$b" R3 "$(us "$p3")" "$(us "$e3")" "$h3"
  printf '%-9s %-4s %14s %14s %16s\n' "$b" R3/R1 "$(ratio "$p3" "$p1")" "$(ratio "$e3" "$e1")" "$(ratio "$h3" "$h1")"
  heads+=("$b")
  heads+=("$h3" "$h1" "$(ratio "$h3" "$h1")x")
done
# No native tool: per broker, the replicated (R3) cluster against one node (R1).
for ((i = 0; i < ${#heads[@]}; i += 4)); do
  bench_headline replication "${heads[i]}: highest rate held, R3 ÷ R1 (no native tool)" "${heads[i + 1]} (R3)" "${heads[i + 2]} (R1)" "${heads[i + 3]}"
done
