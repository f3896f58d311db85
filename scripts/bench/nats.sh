#!/usr/bin/env bash
# NATS core, 1 KB messages: mqbench (bin/k6) beside natsfloor (the same open-model load on
# plain nats.go), same broker, same session, interleaved so both see the same machine noise.
#   1. end-to-end p50 / p99 at 1,000 msg/s
#   2. highest rate held: nothing lost, everything received, never more than 100 ms late, the
#      same for both (mqbench: no dropped iteration either, with a VU pool sized for 100 ms
#      of iterations, the lateness natsfloor is allowed; k6's default pool covers 50 ms),
#      on a ladder that climbs until both tools failed a rung: each tool's ceiling is its last
#      rung held (the ladder's list runs to 10,000,000 msg/s only so that it is finite)
#   3. CPU per message (generator process, user + system) at the highest rate both hold
#   4. schedule lag p50 / p99 at 1,000 and 10,000 msg/s with precise and timer pacing, and the
#      CPU precise pacing costs (pacing.sh)
# BENCH_RATES and BENCH_DURATION override the search.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
url=nats://127.0.0.1:4222
broker="{ type: nats, url: \"$url\", nats: { mode: core } }"
duration=${BENCH_DURATION:-60s}   # a rate is held only over a sustained window

# Its own subject per run: other runs may share the server.
floor() { "$repo/bin/natsfloor" -url "$url" -subject "mqbench.floor.$$" -warmup 2s "$@"; }
# f_probe RATE BATCH: the ladder's peer, natsfloor at RATE: held when everything sent was
# received and the schedule was never bench_late_max_ms behind
f_probe() {
  local sr rr late sent received
  read -r sr rr late sent received <<<"$(floor -rate "$1" -batch "$2" -duration "$duration" \
    -fields sender_rate,receiver_rate,schedule_lag_max_us,sent,received)"
  bench_probe_line=$(awk -v s="$sr" -v r="$rr" -v l="$late" 'BEGIN { printf "%.0f %.0f %.1fms\n", s, r, l / 1e3 }')
  if ((received == sent)) && awk -v l="$late" -v m="$bench_late_max_ms" 'BEGIN { exit !(l < m * 1e3) }'; then
    bench_probe_held=(1)
  else bench_probe_held=(0); fi
}
bench_peer "$@"

# A server already running is used as it is; one started here is stopped at the end, so the
# later sections do not share the machine with it.
bench_on_exit 'rc=$?; bench_broker_down nats; exit $rc'
bench_broker_up nats
(cd "$repo/extensions" && go build -o "$repo/bin/natsfloor" ./cmd/natsfloor)

echo "== NATS core, 1 KB: mqbench (k6) vs plain nats.go, nats-server on 127.0.0.1, $(nproc) cores"

# 1. latency at 1,000 msg/s
s=$(bench_run "$(bench_scenario nats-latency-1000 "$broker" 1KB 1000 1 10s)")
read -r f50 f99 <<<"$(floor -rate 1000 -duration 10s -fields e2e_p50_us,e2e_p99_us)"
k50=$(figure "$s" e2e_p50_us)
k99=$(figure "$s" e2e_p99_us)

# 2. rate search, one rate at a time for both
default_rates=(40000 60000 80000 100000 120000 150000 200000 225000 250000 275000 300000 350000)
for ((r = 400000; r <= 1000000; r += 100000)); do default_rates+=("$r"); done
# then 1.25 times the last, rounded down to 50,000, up to 10,000,000
while ((default_rates[-1] < 10000000)); do default_rates+=($((default_rates[-1] * 125 / 100 / 50000 * 50000))); done
read -r -a rates <<<"${BENCH_RATES:-${default_rates[*]}}"
printf '\n%-10s %-6s %-44s %s\n' rate batch "mqbench: sent/s recv/s dropped lost late-max" "nats.go: sent/s recv/s late-max"
# batch: rate / 2000, to keep k6 at <= 2,000 iterations/s (the same batch for natsfloor)
bench_ladder --name nats-rate --broker "$broker" --duration "$duration" --late-vus --rule on-time \
  --line sent/s,recv/s,dropped,lost,late-max --per-batch 2000 --row '%-10s %-6s %-44s %s' "${rates[@]}" -- "$0" --bench-peer f_probe
k_best=${bench_best[0]} k_batch=${bench_best_batch[0]} f_best=${bench_best[1]}

# 3. CPU per message at the highest rate both held (same load for both)
common=$(( k_best < f_best ? k_best : f_best ))
if (( common > 0 )); then
  batch=$(( common > 2000 ? common / 2000 : 1 ))
  s=$(bench_run "$(bench_scenario "nats-cpu-$common" "$broker" 1KB "$common" "$batch" "$duration")")
  kc=$(printf '%.2f' "$(figure "$s" cpu_per_message_us)")
  fc=$(printf '%.2f' "$(floor -rate "$common" -batch "$batch" -duration "$duration" -fields cpu_per_message_us)")
fi

printf '\n%-44s %16s %16s %8s\n' "" "mqbench (k6)" "plain nats.go" "ratio"
printf '%-44s %14.1fus %14.1fus %7sx\n' "e2e p50 at 1,000 msg/s" "$k50" "$f50" "$(ratio "$k50" "$f50")"
printf '%-44s %14.1fus %14.1fus %7sx\n' "e2e p99 at 1,000 msg/s" "$k99" "$f99" "$(ratio "$k99" "$f99")"
ka=$(bench_ceiling "$k_best" "${rates[-1]}") fa=$(bench_ceiling "$f_best" "${rates[-1]}")
printf '%-44s %16s %16s %8s\n' "highest rate held, msg/s (batch)" "$ka ($k_batch)" "$fa" "$(ratio "$k_best" "$f_best")x"
if (( common > 0 )); then
  printf '%-44s %14sus %14sus %7sx\n' "CPU per message at $common msg/s" "$kc" "$fc" "$(ratio "$kc" "$fc")"
fi
echo "(k6 logs and summaries: $bench_dir)"
bench_headline nats "highest rate held over $duration, msg/s (natsfloor, plain nats.go)" "$ka" "$fa natsfloor" "$(ratio "$k_best" "$f_best")x"

# 4. pacing: schedule lag and its CPU, both tools paced the same way
"$repo/scripts/bench/pacing.sh"
