#!/usr/bin/env bash
# NATS core, 1 KB: how late iterations start (schedule lag) and what precise pacing costs, for
# mqbench (bin/k6) beside natsfloor (plain nats.go, the same open-model loop) paced the same way,
# with workload.pacing / -pacing precise and timer, at 1,000 msg/s (batch 1) and 10,000 msg/s
# (batch 5, as the rate search keeps k6 at <= 2,000 iterations/s). Every configuration runs
# BENCH_PACING_REPEATS times (default 3) for BENCH_PACING_DURATION (default 10s), interleaved,
# and the medians are printed.
# Run by nats.sh (make bench); alone: scripts/bench/pacing.sh (needs nats-server on 4222).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
source "$repo/scripts/bench/lib.sh"
url=nats://127.0.0.1:4222
broker="{ type: nats, url: \"$url\", nats: { mode: core } }"
repeats=${BENCH_PACING_REPEATS:-3}
duration=${BENCH_PACING_DURATION:-10s}
bench_positive_ints repeats
[[ $duration =~ ^[1-9][0-9]*s$ ]] || { echo "error: BENCH_PACING_DURATION must be whole seconds like 10s, got $duration" >&2; exit 2; }
(cd "$repo/extensions" && go build -o "$repo/bin/natsfloor" ./cmd/natsfloor)

rows="$bench_dir/pacing.jsonl"
: >"$rows"
for ((i = 1; i <= repeats; i++)); do
  for rb in 1000:1 10000:5; do
    rate=${rb%:*} batch=${rb#*:}
    for pacing in precise timer; do
      s=$(bench_run_checked "$(bench_scenario "nats-pacing-$pacing-$rate" "$broker" 1KB "$rate" "$batch" "$duration" 1 "$pacing")")
      json "$s" "__import__('json').dumps({'tool': 'mqbench', 'rate': $rate, 'pacing': '$pacing', 'lag_p50': d['cells'][0]['schedule_lag_us']['percentiles']['p50'], 'lag_p99': d['cells'][0]['schedule_lag_us']['percentiles']['p99'], 'e2e_p50': d['cells'][0]['e2e_latency_us']['percentiles']['p50'], 'int_p50': d['cells'][0]['e2e_intended_latency_us']['percentiles']['p50'], 'cpu': d['cells'][0]['cpu_per_message_us']})" >>"$rows"
      "$repo/bin/natsfloor" -url "$url" -warmup 2s -rate "$rate" -batch "$batch" -duration "$duration" -pacing "$pacing" |
        python3 -c "import json,sys; d=json.load(sys.stdin); print(json.dumps({'tool': 'floor', 'rate': $rate, 'pacing': '$pacing', 'lag_p50': d['schedule_lag_p50_us'], 'lag_p99': d['schedule_lag_p99_us'], 'e2e_p50': d['e2e_p50_us'], 'int_p50': d['e2e_intended_p50_us'], 'cpu': d['cpu_per_message_us']}))" >>"$rows"
    done
  done
done

python3 - "$rows" "$repeats" "$duration" "$(nproc)" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(tool, rate, pacing, key, f=None):
    v = [f(r) if f else r[key] for r in rows if (r['tool'], r['rate'], r['pacing']) == (tool, rate, pacing)]
    return statistics.median(v), min(v), max(v)
print(f"\n== NATS core pacing, 1 KB: median of {sys.argv[2]} interleaved runs of {sys.argv[3]} ({sys.argv[4]} cores); [min-max] shows the noise")
print(f"{'':60} {'mqbench (k6)':>24} {'plain nats.go':>24} {'ratio':>7}")
gap = lambda r: r['int_p50'] - r['e2e_p50']
for rate, label in ((1000, '1,000 msg/s'), (10000, '10,000 msg/s (batch 5)')):
    for pacing in ('precise', 'timer'):
        for name, key, f in (('schedule lag p50', 'lag_p50', None), ('schedule lag p99', 'lag_p99', None),
                             ('e2e from intended p50 - e2e p50', None, gap), ('CPU per message', 'cpu', None)):
            k = med('mqbench', rate, pacing, key, f)
            n = med('floor', rate, pacing, key, f)
            cell = lambda m: f"{m[0]:8.1f}us [{m[1]:.0f}-{m[2]:.0f}]"
            ratio = f"{k[0] / n[0]:.2f}x" if n[0] > 0 else '-'
            print(f"{name + ', ' + label + ', ' + pacing:60} {cell(k):>24} {cell(n):>24} {ratio:>7}")
    for tool, tname in (('mqbench', 'mqbench'), ('floor', 'nats.go')):
        p, t = med(tool, rate, 'precise', 'cpu')[0], med(tool, rate, 'timer', 'cpu')[0]
        print(f"  {tname} at {label}: precise pacing costs {p - t:+.1f}us CPU per message ({p:.1f} vs {t:.1f})")
PY
echo "(k6 logs and summaries: $bench_dir; rows: $rows)"
