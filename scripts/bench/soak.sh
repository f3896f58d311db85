#!/usr/bin/env bash
# Soak: does a run stay valid and bounded for its whole length? NATS core, 1 KB at
# 20,000 msg/s (batch 10), once for 1 minute and once for 10 minutes, same broker, same
# session. Prints max RSS of bin/k6, dropped iterations and e2e p99 of each, and the ratios
# (aims: RSS(10 min) <= 1.2 x RSS(1 min), no dropped iteration, p99(10 min) <= 1.5 x p99(1 min)).
# SOAK_SHORT / SOAK_LONG / SOAK_RATE override the lengths and the rate.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
url=nats://127.0.0.1:4222
broker="{ type: nats, url: \"$url\", nats: { mode: core } }"
short=${SOAK_SHORT:-60s} long=${SOAK_LONG:-600s} rate=${SOAK_RATE:-20000}
batch=$(( rate > 5000 ? rate / 2000 : 1 ))

bench_broker_up nats
echo "== soak: NATS core, 1 KB at $rate msg/s (batch $batch), $short vs $long, $(nproc) cores"
row() { # NAME DURATION -> "rss_mb dropped p99_us sent received lost" (its run: NAME-RATE)
  local s rss
  rss=$(bench_ladder --name "$1" --broker "$broker" --duration "$2" --batch "$batch" --line rss --row '%[3]s' "$rate")
  s=$(ls -t "$bench_dir/results/$1-$rate"/*/summary.json | head -1)
  local dropped p99 sent received lost
  read -r dropped p99 sent received lost <<<"$(figure "$s" dropped_iterations e2e_p99_us sent received lost)"
  printf '%s %d %.1f %d %d %d\n' "${rss%%MB*}" "$dropped" "$p99" "$sent" "$received" "$lost"
}
read -r r1 d1 p1 s1 v1 l1 <<<"$(row soak-short "$short")"
read -r r2 d2 p2 s2 v2 l2 <<<"$(row soak-long "$long")"
printf '\n%-28s %14s %14s %8s\n' "" "$short" "$long" "ratio"
printf '%-28s %12.0fMB %12.0fMB %7sx\n' "max RSS of bin/k6" "$r1" "$r2" "$(ratio "$r2" "$r1")"
printf '%-28s %14s %14s\n' "dropped iterations" "$d1" "$d2"
printf '%-28s %12.1fus %12.1fus %7sx\n' "e2e p99" "$p1" "$p2" "$(ratio "$p2" "$p1")"
printf '%-28s %14s %14s\n' "sent / received / lost" "$s1/$v1/$l1" "$s2/$v2/$l2"
bench_broker_down nats
echo "(k6 logs and summaries: $bench_dir)"
# No native tool: the headline compares mqbench's long run with its short one.
bench_headline soak "max RSS of bin/k6, $long run ÷ $short run (no native tool)" "$(printf '%.0f' "$r2") MB" "$(printf '%.0f' "$r1") MB, $short run" "$(ratio "$r2" "$r1")x"
