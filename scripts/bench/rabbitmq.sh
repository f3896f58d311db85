#!/usr/bin/env bash
# RabbitMQ, 1 KB messages, classic durable queue, persistent messages, publisher confirms,
# one producer and one consumer (prefetch 200, acks with multiple=true): mqbench (bin/k6,
# amqp091-go) beside RabbitMQ's own PerfTest (com.rabbitmq:perf-test, pinned in
# brokers/perftest/pom.xml), same broker, same session, interleaved so both see the same
# machine noise.
#   1. publish latency (publish -> broker's confirm) p50 / p99 at 1,000 msg/s; mqbench measures
#      10 s after a 2 s warm-up, PerfTest (no warm-up option) reports its whole 12 s run; both
#      after the ladder (2), on a warm broker
#   2. highest rate held, one rule for both: mean sent, confirmed and received rates all
#      >= 98 % of the target (PerfTest: after its first 2 s), no error or nack, and for mqbench
#      nothing lost (its ledger)
# BENCH_RATES and BENCH_DURATION override the search; BENCH_PT_CONFIRM (1000) is PerfTest's
# window of unconfirmed publishes. Starts RabbitMQ if needed and stops it at the end only if
# this script started it.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
addr=127.0.0.1:${RABBITMQ_PORT:-5672}
broker="{ type: rabbitmq, url: \"amqp://guest:guest@$addr/\", rabbitmq: { queue_type: classic, durable: true, confirms: true, persistent: true, prefetch: 200 } }"
bench_duration 60s   # sets duration and secs; a rate is held only over a sustained window
warmup=2   # seconds, as bench_scenario's warm-up
confirm_window=${BENCH_PT_CONFIRM:-1000}
pt_prefix=mqbench-pt   # PerfTest queues: one per run, auto-deleted when its consumer leaves
stamp=${BENCH_STAMP:-$(date +%H%M%S)}
export BENCH_STAMP=$stamp   # the same in the ladder's peer runs

# pt RATE SECONDS QUEUE -> path of PerfTest's per-second CSV (.cache/bench/QUEUE.csv; console
# output in QUEUE.log). One producer, one consumer, as mqbench: persistent messages into a
# durable classic queue (bound to amq.direct), confirms with a window of $confirm_window,
# prefetch 200 and one multiple=true ack per 100 deliveries (mqbench: per prefetch/2 = 100
# deliveries, or after 1 ms without one).
pt() {
  local rate=$1 secs=$2 queue=$3 log csv
  log="$bench_dir/$queue.log" csv="$bench_dir/$queue.csv"
  rm -f "$csv"
  if ! timeout $((secs + 60)) "$repo/brokers/perftest/perftest.sh" -h "amqp://guest:guest@$addr" \
    -x 1 -y 1 -s 1024 -r "$rate" -c "$confirm_window" -z "$secs" -f persistent \
    -u "$queue" -ad true -qa x-queue-type=classic -e amq.direct -p -q 200 -A 100 \
    -i 1 -o "$csv" >"$log" 2>&1 || ! grep -q 'Reached time limit' "$log" || [[ ! -s $csv ]]; then
    echo "error: PerfTest failed at $rate msg/s; end of $log:" >&2
    grep -v '^[[:space:]]*at ' "$log" | tail -n 20 >&2
    return 1
  fi
  echo "$csv"
}
# ptf CSV -> "p50 p99 published confirmed nacked received p99c_median p99c_max": PerfTest's
# end-of-run confirm latency (µs, whole run, from its log) and, over its per-second rows after
# the warm-up, the mean published, confirmed, nacked and received msg/s and the median and max
# of the seconds' 99th percentile confirm latency (µs).
ptf() {
  local log=${1%.csv}.log re='confirm latency min/median/75th/95th/99th ([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+)/([0-9]+) µs'
  [[ $(grep -a 'confirm latency min/median' "$log") =~ $re ]] || { echo "no confirm latency summary in $log" >&2; return 1; }
  awk -F, -v warmup="$warmup" -v p50="${BASH_REMATCH[2]}" -v p99="${BASH_REMATCH[5]}" -v csv="$1" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $col["time (s)"] + 0 < warmup + 0.5 { next }
    { n++; for (k in want) sum[k] += $col[want[k]]; p99c[n] = $col["99th p. confirm latency (µs)"] + 0 }
    BEGIN { want["p"] = "published (msg/s)"; want["c"] = "confirmed (msg/s)"; want["n"] = "nacked (msg/s)"; want["r"] = "received (msg/s)" }
    END {
      if (!n) { print "no PerfTest rows after the warm-up in " csv > "/dev/stderr"; exit 1 }
      for (i = 2; i <= n; i++) for (j = i; j > 1 && p99c[j - 1] > p99c[j]; j--) { t = p99c[j]; p99c[j] = p99c[j - 1]; p99c[j - 1] = t }
      max = p99c[n]; med = n % 2 ? p99c[(n + 1) / 2] : (p99c[n / 2] + p99c[n / 2 + 1]) / 2
      printf "%s %s %.17g %.17g %.17g %.17g %.17g %.17g\n", p50, p99, sum["p"] / n, sum["c"] / n, sum["n"] / n, sum["r"] / n, med, max
    }' "$1"
}

# p_probe RATE BATCH: the ladder's peer, PerfTest at RATE
p_probe() {
  local rate=$1 c
  c=$(pt "$rate" $((secs + warmup)) "$pt_prefix-$stamp-rate-$rate")
  c=$(ptf "$c")
  bench_probe_line=$(awk '{ printf "%.0f %.0f %.0f%s\n", $3, $4, $6, ($5 ? " nacked" : "") }' <<<"$c")
  if awk -v rate="$rate" '{ m = $3 < $4 ? $3 : $4; m = m < $6 ? m : $6; exit !(m >= 0.98 * rate && !$5) }' <<<"$c"; then
    bench_probe_held=(1)
  else bench_probe_held=(0); fi
}
bench_peer "$@"

# tidy: on a broker this section did not start, PerfTest queues that outlived their run
# (auto-delete only fires once a consumer has subscribed) and mqbench bench queues a crashed k6 left.
tidy() { bench_rabbitmq_delete_queues "^($pt_prefix-|mqbench\\.bench\\.rabbitmq-)"; }
bench_on_exit 'bench_leave rabbitmq tidy'
bench_broker_up rabbitmq

echo "== RabbitMQ $(dpkg-query -W -f='${Version}' rabbitmq-server 2>/dev/null | cut -d- -f1), 1 KB, classic durable queue, persistent, confirms, 1 producer + 1 consumer: mqbench (k6, amqp091-go) vs PerfTest $(sed -n 's:.*<perftest.version>\(.*\)</perftest.version>.*:\1:p' "$repo/brokers/perftest/pom.xml") (Java client), $addr, $(nproc) cores"

# 2. rate search, one rate at a time for both
read -r -a rates <<<"${BENCH_RATES:-2000 5000 7500 10000 12500 15000 20000 30000}"
printf '\n%-8s %-6s %-40s %s\n' rate batch "mqbench: sent/s recv/s dropped lost" "PerfTest: sent/s confirmed/s recv/s"
# batch: rate / 1000, k6 at <= 1,000 iterations/s: at batch 1, k6's iteration machinery was
# 27 % of its CPU at 10,000 msg/s (docs/benchmarks.md), CPU the broker needs on 2 cores
bench_ladder --name rabbitmq-rate --broker "$broker" --duration "$duration" --rule rates \
  --line sent/s,recv/s,dropped,lost,errors --per-batch 1000 --row '%-8s %-6s %-40s %s' "${rates[@]}" -- "$0" --bench-peer p_probe
k_best=${bench_best[0]} k_batch=${bench_best_batch[0]} p_best=${bench_best[1]}

# 1. publish -> confirm latency at 1,000 msg/s, once the ladder has run: as the first run
# after the broker's start, mqbench's cell met ~200 ms stalls every 2-3 s (p99 371 ms against
# PerfTest's 9.7 ms right after it; at 2,000 and 5,000 msg/s a minute later, p99 10-24 ms)
s=$(bench_run_checked "$(bench_scenario rabbitmq-latency-1000 "$broker" 1KB 1000 1 10s)")
k50=$(figure "$s" publish_p50_us)
k99=$(figure "$s" publish_p99_us)
c=$(pt 1000 $((10 + warmup)) "$pt_prefix-$stamp-latency")
read -r p50 p99 _ _ _ _ p99c_median p99c_max <<<"$(ptf "$c")"
p_steady=$(printf 'median %.0fus / max %.0fus' "$p99c_median" "$p99c_max")

printf '\n%-44s %16s %16s %8s\n' "" "mqbench (k6)" "PerfTest" "ratio"
printf '%-44s %14.0fus %14.0fus %7sx\n' "publish->confirm p50 at 1,000 msg/s" "$k50" "$p50" "$(ratio "$k50" "$p50")"
printf '%-44s %14.0fus %14.0fus %7sx\n' "publish->confirm p99 at 1,000 msg/s" "$k99" "$p99" "$(ratio "$k99" "$p99")"
printf '%-44s %16s %16s %8s\n' "highest rate held, msg/s (batch)" "$k_best ($k_batch)" "$p_best" "$(ratio "$k_best" "$p_best")x"
bench_headline rabbitmq "highest rate held, msg/s (PerfTest)" "$k_best" "$p_best PerfTest" "$(ratio "$k_best" "$p_best")x"
cat <<NOTE
Publish latency = publish -> the broker's basic.ack (publisher confirm), per message. Both
tools run 1 producer + 1 consumer (prefetch 200, a multiple=true ack per ~100 deliveries)
in one process (k6 / PerfTest's JVM), whose consumer competes for the $(nproc) cores. Both
hold a rate if their sent, confirmed and received rates stay >= 98 % of the target on
average, without an error; mqbench also must have lost nothing (its ledger). PerfTest's rate
limiter makes up for a stall by sending faster afterwards, mqbench's open model counts a
dropped iteration instead (printed beside its rates). PerfTest has no warm-up: its latency
summary covers its whole 12 s run, JVM start-up included, from a ~1,000-sample reservoir (its
per-second p99 after 2 s: $p_steady); mqbench's figures are exact (HdrHistogram) over 10 s
after a 2 s warm-up.
PerfTest publishes through amq.direct, mqbench through the default exchange; PerfTest's
window of unconfirmed publishes: $confirm_window. Rate ladder: ${rates[*]} msg/s, ${secs} s
each after a ${warmup} s warm-up; each tool stops at its first rate not held (holding the
top rate means "at least").
(k6 logs and summaries, PerfTest output and CSV: $bench_dir)
NOTE
