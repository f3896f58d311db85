#!/usr/bin/env bash
# Max throughput, closed loop: mqbench's `rate: max` cells beside the brokers' own tools, each
# sending as fast as acknowledgements return, same broker, same session (interleaved when
# repeated, first tool alternating), so both see the same machine noise.
#   1. RabbitMQ, the seed's classic-queue run (the shape of scenarios/rabbitmq-throughput-classic.yaml,
#      which since follows the AMQP 1.0 study: window 192, mandatory, an ack per 200):
#      BENCH_MAX_MESSAGES (1,000,000) messages of 12 B into a durable classic queue, persistent,
#      publisher confirms, 1 producer + 1 consumer, prefetch 200, a multiple=true ack per 100
#      deliveries: mqbench (inflight 200) beside RabbitMQ PerfTest (brokers/perftest/pom.xml)
#      with --pmessages/--cmessages N, --confirm 200, --qos 200, through the default exchange
#      as mqbench. Sender, confirm and receiver rates of both.
#   2. Kafka: BENCH_MAX_KAFKA_MESSAGES (500,000) records of 1 KB, acks=all (idempotent), linger
#      0, batches up to 1000012 bytes (as kafka.sh), 1 partition, 1 producer: mqbench (inflight
#      BENCH_MAX_KAFKA_INFLIGHT, 1000) beside ProducerPerformance --throughput -1 (the pinned
#      kafka-tools jars). Records/s of both; mqbench also consumes and reports its e2e rate.
# Why inflight 1000 for Kafka: the throughput is the broker's (and the 2 cores'), not the
# window's. Measured here (500,000 x 1 KB, one run each): 1,000 and 5,000 in flight sent at
# about the same rate, 5,000 with 5x the publish p50; 32,000 (what ProducerPerformance may
# buffer: buffer.memory 32 MB) was slower, its consumer falling behind, with publish p50
# ~200 ms. 1,000 x 1 KB is also about one full batch (batch_bytes).
# Both tools count every message from the first send (mqbench warm-up 0 s; PerfTest and
# ProducerPerformance have none, so their JVM's start-up is in their figures; the
# ProducerPerformance steady-state rate after its first 20 % is printed beside).
# BENCH_MAX_REPEATS (3) repeats both parts, the table taking medians (single runs swung 0.88-1.36x
# for Kafka between invocations). The defaults take about 7.5 minutes on 2 cores.
# Starts RabbitMQ, then Kafka, if needed, and stops each at the end of its part only if this
# script started it; on a broker it did not start it deletes only its own queues and topics.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
messages=${BENCH_MAX_MESSAGES:-1000000}
kmessages=${BENCH_MAX_KAFKA_MESSAGES:-500000}
kinflight=${BENCH_MAX_KAFKA_INFLIGHT:-1000}
repeats=${BENCH_MAX_REPEATS:-3}
bench_positive_ints messages kmessages kinflight repeats
raddr=127.0.0.1:${RABBITMQ_PORT:-5672}
bootstrap=127.0.0.1:${KAFKA_PORT:-9092}
batch_bytes=1000012   # kafka.sh's: mqbench's default batch_bytes, ProducerPerformance's batch.size
limit=5m              # mqbench's time limit per run (a message-counted closed loop ends sooner)
rinflight=200         # mqbench inflight = PerfTest --confirm; prefetch = --qos
pt_prefix=mqbench-pt-max pp_prefix=mqbench-pp-max
stamp=$(date +%H%M%S)
rabbit="{ type: rabbitmq, url: \"amqp://guest:guest@$raddr/\", rabbitmq: { queue_type: classic, durable: true, confirms: true, persistent: true, prefetch: 200 } }"
kafka="{ type: kafka, url: \"kafka://$bootstrap\", kafka: { acks: all, linger: 0s, batch_bytes: $batch_bytes, topic: { partitions: 1 } } }"

# Brokers this section brought up (or found running) and has not put down yet.
up=()
# tidy BROKER: on a broker this section did not start, delete what its runs may have left
# (PerfTest's non-auto-delete queue, ProducerPerformance's topics, a crashed k6's destination).
tidy() {
  bench_we_started "$1" && return 0
  [[ $(bench_broker_state "$1") == running ]] || return 0
  case $1 in
    rabbitmq)
      local q
      for q in $("$repo/scripts/brokers/rabbitmqctl.sh" -q list_queues name 2>/dev/null |
        grep -E "^($pt_prefix-|mqbench\\.bench\\.max-rabbitmq-)" || true); do
        "$repo/scripts/brokers/rabbitmqctl.sh" -q delete_queue "$q" >/dev/null ||
          echo "warning: could not delete queue $q" >&2
      done ;;
    kafka)
      "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
        --delete --if-exists --topic "$pp_prefix-.*|mqbench\\.bench\\.max-kafka-.*" >/dev/null 2>>"$bench_dir/kafka-tools.log" ||
        echo "warning: could not delete the $pp_prefix-* topics (see $bench_dir/kafka-tools.log)" >&2 ;;
  esac
}
part_up() { bench_broker_up "$1"; up+=("$1"); }
part_down() {
  local b rest=() rc=0
  tidy "$1" || rc=1
  bench_broker_down "$1" || rc=1
  for b in "${up[@]}"; do [[ $b == "$1" ]] || rest+=("$b"); done
  up=("${rest[@]}")
  return $rc
}
cleanup() {
  local rc=$? b
  for b in "${up[@]}"; do part_down "$b" || rc=1; done
  exit "$rc"
}
bench_on_exit cleanup

# max_scenario NAME BROKER_YAML SIZE MESSAGES INFLIGHT -> path of a one-cell rate: max scenario
max_scenario() {
  local name=$1 broker=$2 size=$3 n=$4 inflight=$5
  local f="$bench_dir/$name.yaml"
  cat >"$f" <<YAML
name: $name
description: generated by scripts/bench/max.sh ($n x $size, rate max, inflight $inflight)
broker: $broker
workload: { destination: mqbench.bench.$name, warmup: 0s, duration: $limit, drain: 10s, producers: 1, consumers: 1 }
matrix:
  - { size: $size, rate: max, messages: $n, inflight: $inflight }
YAML
  echo "$f"
}
# kq NAME BROKER_YAML SIZE MESSAGES INFLIGHT -> "sender ack receiver e2e publish_p50_us
# publish_p99_us flag" from the run's summary.json (flag "-" when every message was sent
# and received and none lost, else what went wrong)
kq() {
  local n=$4 s sr ar rr er p50 p99 sent received lost errors problems=()
  s=$(bench_run_checked "$(max_scenario "$@")")
  read -r sr ar rr er p50 p99 sent received lost errors <<<"$(figure "$s" sender_rate ack_rate receiver_rate e2e_rate \
    publish_p50_us publish_p99_us sent received lost publish_errors)"
  ((sent == n)) || problems+=("sent=$sent")
  ((received == sent)) || problems+=("received=$received")
  ((lost == 0)) || problems+=("lost=$lost")
  ((errors == 0)) || problems+=("errors=$errors")
  local IFS=,
  printf '%.0f %.0f %.0f %.0f %.0f %.0f %s\n' "$sr" "$ar" "$rr" "$er" "$p50" "$p99" "${problems[*]:--}"
}

# pt QUEUE -> "sent confirmed received confirm_p50_us confirm_p99_us" from PerfTest: its
# summary's sending and receiving rate avg (whole run), confirmed = its per-second CSV's
# confirmed rates weighted by their intervals; confirm latency from its summary. Output in
# .cache/bench/QUEUE.{log,csv}; the queue is deleted afterwards.
pt() {
  local queue=$1 log csv rc=0
  log="$bench_dir/$queue.log" csv="$bench_dir/$queue.csv"
  rm -f "$csv"
  timeout $((messages / 1000 + 120)) "$repo/brokers/perftest/perftest.sh" -h "amqp://guest:guest@$raddr" \
    -x 1 -y 1 -s 12 -C "$messages" -D "$messages" -c "$rinflight" -q 200 -A 100 -f persistent \
    -u "$queue" -k "$queue" -e amq.default -p -ad false -qa x-queue-type=classic \
    -i 1 -o "$csv" >"$log" 2>&1 || rc=$?
  "$repo/scripts/brokers/rabbitmqctl.sh" -q delete_queue "$queue" >/dev/null 2>&1 ||
    echo "warning: could not delete queue $queue" >&2
  if (( rc )) || ! grep -q 'Producer reached message limit, Consumer reached message limit' "$log"; then
    echo "error: PerfTest did not send and receive $messages messages (exit $rc); end of $log:" >&2
    grep -v '^[[:space:]]*at ' "$log" | tail -n 20 >&2
    return 1
  fi
  local text sent recv p50 p99
  text=$(cat "$log")
  [[ $text =~ sending\ rate\ avg:\ ([0-9.]+)\ msg/s ]] && sent=${BASH_REMATCH[1]}
  [[ $text =~ receiving\ rate\ avg:\ ([0-9.]+)\ msg/s ]] && recv=${BASH_REMATCH[1]}
  [[ $text =~ confirm\ latency\ min/median/75th/95th/99th\ ([0-9]+)/([0-9]+)/[0-9]+/[0-9]+/([0-9]+)\ µs ]] &&
    p50=${BASH_REMATCH[2]} p99=${BASH_REMATCH[3]}
  [[ -n ${sent:-} && -n ${recv:-} && -n ${p50:-} ]] || { echo "no rate or confirm latency summary in $log" >&2; return 1; }
  # The confirmed rate over the whole run: each second's rate times its length, over the run's.
  awk -F, -v sent="$sent" -v recv="$recv" -v p50="$p50" -v p99="$p99" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { t = $col["time (s)"] + 0; total += ($col["confirmed (msg/s)"] + 0) * (t - prev); prev = t }
    END { printf "%.0f %.0f %.0f %s %s\n", sent, prev ? total / prev : 0, recv, p50, p99 }' "$csv"
}

# pp TOPIC -> "records_per_s steady_records_per_s p50_us p99_us" from ProducerPerformance
# (whole run; steady state after its first 20 % of records; latencies of the whole run) into
# a 1-partition topic created first. Output in .cache/bench/TOPIC.log.
pp() {
  local topic=$1 log
  log="$bench_dir/$topic.log"
  "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" \
    --create --topic "$topic" --partitions 1 --replication-factor 1 >/dev/null 2>>"$bench_dir/kafka-tools.log" ||
    { echo "error: could not create topic $topic (see $bench_dir/kafka-tools.log)" >&2; return 1; }
  if ! timeout $((kmessages / 1000 + 120)) "$repo/scripts/brokers/kafka-tool.sh" org.apache.kafka.tools.ProducerPerformance \
    --bootstrap-server "$bootstrap" --topic "$topic" --num-records "$kmessages" --warmup-records $((kmessages / 5)) \
    --record-size 1024 --throughput -1 --reporting-interval 600000 \
    --command-property acks=all linger.ms=0 compression.type=none batch.size=$batch_bytes >"$log" 2>&1 ||
    grep -q Exception "$log"; then
    echo "error: ProducerPerformance failed; end of $log:" >&2
    tail -n 20 "$log" >&2
    return 1
  fi
  local tot steady
  tot=$(grep -m1 "^$kmessages records sent, " "$log" || true)
  steady=$(grep -m1 'steady state records sent, ' "$log" || true)
  [[ $tot =~ sent,\ ([0-9.]+)\ records/sec\ .*,\ ([0-9]+)\ ms\ 50th,\ [0-9]+\ ms\ 95th,\ ([0-9]+)\ ms\ 99th ]] &&
    tot="${BASH_REMATCH[1]} ${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" &&
    [[ $steady =~ steady\ state\ records\ sent,\ ([0-9.]+)\ records/sec ]] ||
    { echo "no total or steady-state line from ProducerPerformance in $log" >&2; return 1; }
  read -r t p50 p99 <<<"$tot"
  printf '%.0f %.0f %d %d\n' "$t" "${BASH_REMATCH[1]}" $((p50 * 1000)) $((p99 * 1000))
}

echo "== Max throughput, closed loop (mqbench rate: max) vs the brokers' own tools, $(nproc) cores, $repeats run(s) each, interleaved"

# 1. RabbitMQ
part_up rabbitmq
echo
echo "-- RabbitMQ $(dpkg-query -W -f='${Version}' rabbitmq-server 2>/dev/null | cut -d- -f1), $messages x 12 B, classic durable queue, persistent, confirms (window $rinflight), prefetch 200, 1 producer + 1 consumer: mqbench (k6, amqp091-go) vs PerfTest $(sed -n 's:.*<perftest.version>\(.*\)</perftest.version>.*:\1:p' "$repo/brokers/perftest/pom.xml") (Java client), $raddr"
printf '%-4s %-12s %-50s %s\n' run first "mqbench: sent/s acked/s recv/s e2e/s (problems)" "PerfTest: sent/s confirmed/s recv/s"
r_ks=() r_ka=() r_kr=() r_ke=() r_k50=() r_k99=() r_ps=() r_pc=() r_pr=() r_p50=() r_p99=()
for ((i = 1; i <= repeats; i++)); do
  first=mqbench; (( i % 2 )) || first=PerfTest
  if [[ $first == mqbench ]]; then
    k=$(kq "max-rabbitmq-$i" "$rabbit" 12B "$messages" "$rinflight")
    p=$(pt "$pt_prefix-$stamp-$i")
  else
    p=$(pt "$pt_prefix-$stamp-$i")
    k=$(kq "max-rabbitmq-$i" "$rabbit" 12B "$messages" "$rinflight")
  fi
  r_ks+=("$(field "$k" 1)") r_ka+=("$(field "$k" 2)") r_kr+=("$(field "$k" 3)") r_ke+=("$(field "$k" 4)")
  r_k50+=("$(field "$k" 5)") r_k99+=("$(field "$k" 6)")
  r_ps+=("$(field "$p" 1)") r_pc+=("$(field "$p" 2)") r_pr+=("$(field "$p" 3)") r_p50+=("$(field "$p" 4)") r_p99+=("$(field "$p" 5)")
  kflag=$(field "$k" 7)
  if [[ $kflag == - ]]; then kflag=""; else kflag="($kflag)"; fi
  printf '%-4s %-12s %-50s %s\n' "$i" "$first" "$(field "$k" 1) $(field "$k" 2) $(field "$k" 3) $(field "$k" 4) $kflag" \
    "$(field "$p" 1) $(field "$p" 2) $(field "$p" 3)"
done
part_down rabbitmq

# 2. Kafka
part_up kafka
echo
echo "-- Kafka 4.3.1, $kmessages x 1 KB, acks=all, linger 0, batches <= $batch_bytes B, 1 partition, 1 producer: mqbench (k6, franz-go, inflight $kinflight, + 1 consumer) vs ProducerPerformance --throughput -1 (Java client), $bootstrap"
# A broker JVM started seconds ago answers slower (kafka.sh): warm it before either tool counts.
kq max-kafka-warmup "$kafka" 1KB $(( kmessages < 50000 ? kmessages : 50000 )) "$kinflight" >/dev/null
printf '%-4s %-12s %-50s %s\n' run first "mqbench: sent/s recv/s e2e/s (problems)" "ProducerPerformance: records/s (steady state)"
k_s=() k_r=() k_e=() k_50=() k_99=() p_s=() p_st=() p_50=() p_99=()
for ((i = 1; i <= repeats; i++)); do
  first=mqbench; (( i % 2 )) || first=ProducerPerf
  if [[ $first == mqbench ]]; then
    k=$(kq "max-kafka-$i" "$kafka" 1KB "$kmessages" "$kinflight")
    p=$(pp "$pp_prefix-$stamp-$i")
  else
    p=$(pp "$pp_prefix-$stamp-$i")
    k=$(kq "max-kafka-$i" "$kafka" 1KB "$kmessages" "$kinflight")
  fi
  k_s+=("$(field "$k" 1)") k_r+=("$(field "$k" 3)") k_e+=("$(field "$k" 4)") k_50+=("$(field "$k" 5)") k_99+=("$(field "$k" 6)")
  p_s+=("$(field "$p" 1)") p_st+=("$(field "$p" 2)") p_50+=("$(field "$p" 3)") p_99+=("$(field "$p" 4)")
  kflag=$(field "$k" 7)
  if [[ $kflag == - ]]; then kflag=""; else kflag="($kflag)"; fi
  printf '%-4s %-12s %-50s %s\n' "$i" "$first" "$(field "$k" 1) $(field "$k" 3) $(field "$k" 4) $kflag" "$(field "$p" 1) ($(field "$p" 2))"
done
part_down kafka

# The table: medians over the runs.
row() { printf '%-52s %14s %14s %8s\n' "$1" "$2" "$3" "$4"; }
m() { median "$@"; }
echo
row "" "mqbench (k6)" "native" "ratio"
a=$(m "${r_ks[@]}") b=$(m "${r_ps[@]}"); row "RabbitMQ 12 B, sent msg/s (PerfTest)" "$a" "$b" "$(ratio "$a" "$b")x"
rabbit_head=("RabbitMQ closed loop, sent msg/s (PerfTest)" "$a" "$b PerfTest" "$(ratio "$a" "$b")x")
a=$(m "${r_ka[@]}") b=$(m "${r_pc[@]}"); row "RabbitMQ 12 B, confirmed msg/s" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(m "${r_kr[@]}") b=$(m "${r_pr[@]}"); row "RabbitMQ 12 B, received msg/s" "$a" "$b" "$(ratio "$a" "$b")x"
row "RabbitMQ 12 B, mqbench e2e msg/s" "$(m "${r_ke[@]}")" "" ""
a=$(m "${r_k50[@]}") b=$(m "${r_p50[@]}"); row "RabbitMQ publish -> confirm p50, us (closed loop)" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(m "${r_k99[@]}") b=$(m "${r_p99[@]}"); row "RabbitMQ publish -> confirm p99, us (closed loop)" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(m "${k_s[@]}") b=$(m "${p_s[@]}"); row "Kafka 1 KB acks=all, records/s (ProducerPerformance)" "$a" "$b" "$(ratio "$a" "$b")x"
kafka_head=("Kafka closed loop, records/s (ProducerPerformance)" "$a" "$b ProducerPerformance" "$(ratio "$a" "$b")x")
b=$(m "${p_st[@]}"); row "Kafka, ProducerPerf after its first 20 % (warm JVM)" "" "$b" "$(ratio "$a" "$b")x"
row "Kafka, mqbench received msg/s / e2e msg/s" "$(m "${k_r[@]}") / $(m "${k_e[@]}")" "" ""
a=$(m "${k_50[@]}") b=$(m "${p_50[@]}"); row "Kafka send -> ack p50, us (closed loop)" "$a" "$b" "$(ratio "$a" "$b")x"
a=$(m "${k_99[@]}") b=$(m "${p_99[@]}"); row "Kafka send -> ack p99, us (closed loop)" "$a" "$b" "$(ratio "$a" "$b")x"
cat <<NOTE
Closed loops: each tool sends as fast as acknowledgements return, so the rates are the
broker's (and these $(nproc) cores') with each client's overhead, and the latencies are
those of a full window (not open-model latencies). Figures are medians over $repeats run(s),
each run counting every message from its first send. mqbench: sent/s over first -> last
send, received/s over first -> last receipt, e2e over first send -> last receipt, one k6
process that also consumes. PerfTest: its summary's "sending/receiving rate avg" (whole run,
JVM start-up included), confirmed/s from its per-second CSV; it runs producer and consumer in
one JVM too. ProducerPerformance has no consumer and no window of its own but
buffer.memory (32 MB, ~32,000 records of 1 KB): its latency is the queueing in that buffer.
Kafka: both idempotent, up to 5 requests in flight, no compression; mqbench's window
$kinflight messages.
(k6 logs and summaries, PerfTest and ProducerPerformance output: $bench_dir)
NOTE
# Two brokers, two headlines.
bench_headline max "${rabbit_head[@]}"
bench_headline max "${kafka_head[@]}"
