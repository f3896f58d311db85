#!/usr/bin/env bash
# Treat's "Benchmarking Commit Logs" (Kafka vs NATS Streaming; JetStream stands in for NATS
# Streaming, which is end-of-life): latency at a fixed 50 msg/s per size, and throughput:
# 100,000 messages per size sent as fast as acknowledged (1 MB: 3,000; in memory 1,000). NATS
# in its three setups: in memory, file, file with an fsync per message (a private server
# started with NATS_SYNC_ALWAYS=1 on 14322, the shared one on 4222 untouched); Kafka on the
# page cache and with flush.messages 1. The ratios: Kafka ÷ NATS (file) at p99, fsync ÷
# memory (p99 and throughput), Kafka flush ÷ page cache, all at 1 KB.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/reproduce/lib.sh"
private=0
cleanup() {
  local rc=$? b
  ((private == 0)) || repro_private_nats_down
  for b in "${bench_started[@]}"; do bench_broker_down "$b" || rc=1; done
  exit "$rc"
}
bench_on_exit cleanup
fsync_url=nats://127.0.0.1:4222=nats://127.0.0.1:14322
declare -A p99 tp
have_kafka=0 have_nats=0
repro_up kafka && have_kafka=1
repro_up nats && have_nats=1
if ((have_nats)); then repro_private_nats_up && private=1; fi

repro_header "Benchmarking Commit Logs (Treat): latency at 50 msg/s"
echo "| scenario | cell | size | rate | p50 ms | p99 ms | p99.99 ms | mean ± stddev ms | held |"
echo "|---|---|---|---|---|---|---|---|---|"
runs=()
((have_kafka)) && runs+=(commit-log-kafka commit-log-kafka-flush)
((have_nats)) && runs+=(commit-log-jetstream commit-log-jetstream-memory commit-log-jetstream-fsync)
for sc in "${runs[@]}"; do
  subs=()
  [[ $sc != *-fsync ]] || subs=("$fsync_url")
  s=$(repro_run "$sc" "${subs[@]}")
  repro_latency_rows "$s"
  p99[$sc]=$(cell "$s" c2 e2e_p99_us)   # c2: 1 KB
done

repro_header "Benchmarking Commit Logs (Treat): throughput, as fast as acknowledged"
echo "| scenario | cell | size | sent | sender/s | receiver/s | e2e/s | publish p99 ms | e2e p99 ms | lost |"
echo "|---|---|---|---|---|---|---|---|---|---|"
runs=()
((have_kafka)) && runs+=(commit-log-throughput-kafka commit-log-throughput-kafka-flush)
((have_nats)) && runs+=(commit-log-throughput-jetstream commit-log-throughput-jetstream-memory commit-log-throughput-jetstream-fsync)
for sc in "${runs[@]}"; do
  subs=()
  [[ $sc != *-fsync ]] || subs=("$fsync_url")
  s=$(repro_run "$sc" "${subs[@]}")
  repro_rate_rows "$s"
  tp[$sc]=$(cell "$s" c2 e2e_rate)
done

echo
echo "| ratio, 1 KB | mqbench | study |"
echo "|---|---|---|"
r() { [[ -z ${2:-} || -z ${3:-} ]] || repro_ratio "$1" "$2" "$3" "$4"; }
r "Kafka ÷ NATS file, e2e p99 at 50 msg/s" "${p99[commit-log-kafka]:-}" "${p99[commit-log-jetstream]:-}" "see docs/reproductions.md"
r "NATS fsync ÷ memory, e2e p99 at 50 msg/s" "${p99[commit-log-jetstream-fsync]:-}" "${p99[commit-log-jetstream-memory]:-}" "see docs/reproductions.md"
r "Kafka flush ÷ page cache, e2e p99 at 50 msg/s" "${p99[commit-log-kafka-flush]:-}" "${p99[commit-log-kafka]:-}" "(not measured)"
r "NATS fsync ÷ memory, throughput" "${tp[commit-log-throughput-jetstream-fsync]:-}" "${tp[commit-log-throughput-jetstream-memory]:-}" "see docs/reproductions.md"
r "Kafka ÷ NATS file, throughput" "${tp[commit-log-throughput-kafka]:-}" "${tp[commit-log-throughput-jetstream]:-}" "see docs/reproductions.md"
