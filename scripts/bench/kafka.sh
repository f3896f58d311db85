#!/usr/bin/env bash
# Kafka, 1 KB messages, acks=all, linger 0, one partition: mqbench (bin/k6, franz-go) beside
# Kafka's own ProducerPerformance (kafka-tools, the pinned 4.3.1 jars), same broker, same
# session, interleaved so both see the same machine noise.
#   1. publish latency (send -> acks=all acknowledgement) p50 / p99 / mean at 1,000 msg/s,
#      10 s measured after a 2 s warm-up (ProducerPerformance: --warmup-records, steady state),
#      measured after the ladder (2), on a warm broker
#   2. highest rate held over 60 s, producers only (ProducerPerformance has no consumer; so
#      the mqbench cells have consumers: 0): records/s sent and acknowledged >= 98 % of the
#      target with no error, the same rule for both (ProducerPerformance: its steady state)
# BENCH_RATES and BENCH_DURATION override the search. Starts Kafka if needed and stops it at
# the end only if this script started it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
bootstrap=127.0.0.1:${KAFKA_PORT:-9092}
# The most a produce request carries per partition, for both clients: mqbench's default
# batch_bytes (franz-go's ProducerBatchMaxBytes). The Java client's own default batch.size,
# 16 KB, held ~27,000 msg/s where 1 MB held 44,000 (ProducerPerformance, 2 cores).
batch_bytes=1000012
broker="{ type: kafka, url: \"kafka://$bootstrap\", kafka: { acks: all, linger: 0s, batch_bytes: $batch_bytes } }"
bench_duration 60s   # sets duration and secs; a rate is held only over a sustained window
warmup=2   # seconds, as bench_scenario's warm-up
pp_prefix=mqbench-pp   # ProducerPerformance topics: one per run, deleted at the end
stamp=${BENCH_STAMP:-$(date +%H%M%S)}
export BENCH_STAMP=$stamp   # the same in the ladder's peer runs

# pp RATE SECONDS TOPIC -> ProducerPerformance's steady-state line (after rate x 2 s of
# warm-up records), e.g. "10000 steady state records sent, 990.8 records/sec (0.97 MB/sec),
# 2.25 ms avg latency, 31.00 ms max latency, 2 ms 50th, 3 ms 95th, 6 ms 99th, 19 ms 99.9th."
# Its full output is kept in .cache/bench/TOPIC.log.
pp() {
  local rate=$1 secs=$2 topic=$3 log line
  log="$bench_dir/$topic.log"
  if ! timeout $((secs * 6 + 60)) "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.ProducerPerformance \
    --bootstrap-server "$bootstrap" --topic "$topic" \
    --num-records $((rate * (secs + warmup))) --warmup-records $((rate * warmup)) \
    --record-size 1024 --throughput "$rate" --reporting-interval 600000 \
    --command-property acks=all linger.ms=0 compression.type=none batch.size=$batch_bytes >"$log" 2>&1; then
    echo "error: ProducerPerformance failed at $rate msg/s; end of $log:" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  line=$(grep 'steady state records sent' "$log" || true)
  [[ -n $line ]] || { echo "error: no steady-state line from ProducerPerformance in $log" >&2; tail -n 20 "$log" >&2; return 1; }
  if grep -q 'Exception' "$log"; then line="$line ERRORS"; fi
  echo "$line"
}
# ppf LINE -> "rate avg max p50 p95 p99 p999 errors" from ProducerPerformance's steady-state
# line: records/s, latencies in µs, errors 1 when the run logged an exception (pp's ERRORS).
ppf() {
  local re='([0-9.]+) records/sec .*, ([0-9.]+) ms avg latency, ([0-9.]+) ms max latency, ([0-9]+) ms 50th, ([0-9]+) ms 95th, ([0-9]+) ms 99th, ([0-9]+) ms 99[.]9th'
  [[ $1 =~ $re ]] || { echo "cannot parse ProducerPerformance line: $1" >&2; return 1; }
  awk -v m="${BASH_REMATCH[*]:1}" -v e="$([[ $1 == *ERRORS ]] && echo 1 || echo 0)" \
    'BEGIN { split(m, v, " "); printf "%s", v[1]; for (i = 2; i <= 7; i++) printf " %.17g", v[i] * 1e3; print " " e }'
}

# p_probe RATE BATCH: the ladder's peer, ProducerPerformance at RATE
p_probe() {
  local rate=$1 p
  p=$(pp "$rate" "$secs" "$pp_prefix-$stamp-rate-$rate")
  # 60 s rungs fill the disk (100,000 msg/s of 1 KB is 6 GB a rung): each topic goes after
  # its rung (mqbench deletes the topics it created itself)
  "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
    --delete --if-exists --topic "$pp_prefix-$stamp-rate-$rate" >/dev/null 2>>"$bench_dir/kafka-tools.log" || true
  p=$(ppf "$p")
  bench_probe_line=$(awk '{ printf "%.0f %.0fms%s\n", $1, $6 / 1e3, ($8 ? " errors" : "") }' <<<"$p")
  if awk -v rate="$rate" '{ exit !($1 >= 0.98 * rate && !$8) }' <<<"$p"; then bench_probe_held=(1); else bench_probe_held=(0); fi
}
bench_peer "$@"

# tidy: on a broker this section did not start, the topics ProducerPerformance auto-created
# (ours and any left by an interrupted earlier run) and any mqbench bench topic a crashed k6 left.
tidy() { bench_kafka_delete_topics "$bootstrap" "$pp_prefix-.*|mqbench\\.bench\\.kafka-.*" "$pp_prefix-*"; }
bench_on_exit 'bench_leave kafka tidy'
bench_broker_up kafka

echo "== Kafka 4.3.1, 1 KB, acks=all, linger 0, 1 partition: mqbench (k6, franz-go) vs ProducerPerformance (Java client), 127.0.0.1, $(nproc) cores"

# 0. warm the broker for the ladder's first rung: a Kafka JVM started seconds ago answers
# several times slower than a warm one (mqbench p50 3.2 ms cold vs 0.4-0.6 ms warm, measured);
# these 5 s were not enough for the latency pair, which runs after the ladder (1). Neither
# tool's figures are kept from this run.
pp 2000 5 "mqbench-pp-$stamp-warmup" >/dev/null
bench_run_checked "$(bench_scenario kafka-warmup "$broker" 1KB 2000 1 5s)" >/dev/null

# 2. rate search, one rate at a time for both
read -r -a rates <<<"${BENCH_RATES:-5000 20000 40000 60000 80000 90000 100000 120000 150000 200000 250000 300000}"
printf '\n%-8s %-6s %-40s %s\n' rate batch "mqbench: sent/s acked/s dropped" "ProducerPerformance: records/s p99"
# batch: rate / 5000, to keep k6 at <= 5,000 iterations/s
bench_ladder --name kafka-rate --broker "$broker" --duration "$duration" --consumers 0 --rule acked \
  --line sent/s,acked/s,dropped,errors --per-batch 5000 --row '%-8s %-6s %-40s %s' "${rates[@]}" -- "$0" --bench-peer p_probe
k_best=${bench_best[0]} k_batch=${bench_best_batch[0]} p_best=${bench_best[1]}

# 1. publish latency at 1,000 msg/s, 10 s after the warm-up, once the ladder has run: right
# after the 5 s warm-ups, mqbench's cell still met a cold broker (per-second e2e p50 7-10 ms
# for 6 s, then 1.8-3.4 ms; p50 4.4 ms against ProducerPerformance's 1 ms, which ran after it)
s=$(bench_run_checked "$(bench_scenario kafka-latency-1000 "$broker" 1KB 1000 1 10s)")
k50=$(figure "$s" publish_p50_us)
k99=$(figure "$s" publish_p99_us)
kavg=$(printf '%.1f' "$(figure "$s" publish_mean_us)")
p=$(pp 1000 10 "$pp_prefix-$stamp-latency")
read -r _ pavg _ p50 _ p99 _ _ <<<"$(ppf "$p")"
pavg=$(printf '%.1f' "$pavg")

printf '\n%-44s %16s %16s %8s\n' "" "mqbench (k6)" "ProducerPerf" "ratio"
printf '%-44s %14.0fus %14.0fus %7sx\n' "publish p50 at 1,000 msg/s" "$k50" "$p50" "$(ratio "$k50" "$p50")"
printf '%-44s %14.0fus %14.0fus %7sx\n' "publish p99 at 1,000 msg/s" "$k99" "$p99" "$(ratio "$k99" "$p99")"
printf '%-44s %14.0fus %14.0fus %7sx\n' "publish mean at 1,000 msg/s" "$kavg" "$pavg" "$(ratio "$kavg" "$pavg")"
ka=$(bench_ceiling "$k_best" "${rates[-1]}") pa=$(bench_ceiling "$p_best" "${rates[-1]}")
printf '%-44s %16s %16s %8s\n' "highest rate held, msg/s (batch)" "$ka ($k_batch)" "$pa" "$(ratio "$k_best" "$p_best")x"
bench_headline kafka "highest rate held, msg/s (ProducerPerformance)" "$ka" "$pa ProducerPerformance" "$(ratio "$k_best" "$p_best")x"
cat <<NOTE
Publish latency = send call -> acks=all acknowledgement, per message, one broker, one
partition; both clients idempotent, linger 0, no compression, up to 5 requests in flight,
batches of up to $batch_bytes bytes (ProducerPerformance's batch.size set to mqbench's
batch_bytes; the Java default, 16 KB, holds far less).
ProducerPerformance keeps whole milliseconds (its p50 / p99 move in 1,000 us steps; its mean
is finer). It has no consumer and only produces, so the ladder's mqbench cells have
consumers: 0 too; both hold a rate when records sent and acknowledged reach 98 % of it with
no error (mqbench: dropped iterations count against it). Rate ladder: ${rates[*]} msg/s,
${secs} s each after a ${warmup} s warm-up; each tool stops at its first rate not held
(holding the top rate means "at least").
(k6 logs and summaries, ProducerPerformance output: $bench_dir)
NOTE
