#!/usr/bin/env bash
# Measures the regression gate (k6 x mqbench compare --baseline … --candidate …) on real
# runs: N+1 runs of one NATS scenario at identical load give N pairs that must pass; N runs
# through a delay proxy (extensions/cmd/delayproxy: every published message held GATE_DELAY
# plus up to 1 ms) against the baseline runs give N pairs that must fail. Prints both counts and the
# measured p99 shift. Not part of make test (about 10 minutes with the defaults).
#   GATE_PAIRS (20) GATE_DURATION (10s) GATE_RATE (2000) GATE_DELAY (100us; with GATE_PRECISE=0 held until the next 1 ms tick) GATE_TOLERANCE (10%)
#   GATE_REPEAT (1): runs per side of each comparison (--baseline and --candidate given that often)
#   GATE_COLLECT=0 reuses the runs of the last invocation (in .cache/gate-noise).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
pairs=${GATE_PAIRS:-20} duration=${GATE_DURATION:-10s} rate=${GATE_RATE:-2000} delay=${GATE_DELAY:-100us} precise=${GATE_PRECISE:-1}
tolerance=${GATE_TOLERANCE:-10%} repeat=${GATE_REPEAT:-1}
dir="$repo/.cache/gate-noise"
k6="$repo/bin/k6"
[[ -x $k6 ]] || "$repo/scripts/build.sh"
if [[ ${GATE_COLLECT:-1} != 0 ]]; then
  rm -rf "$dir"
  mkdir -p "$dir"
  "$repo/scripts/brokers/start.sh" nats >/dev/null
  (cd "$repo/extensions" && go build -o "$repo/bin/delayproxy" ./cmd/delayproxy)
  cat >"$dir/gate-nats.yaml" <<YAML
name: gate-nats
description: the regression gate's measurement, NATS core, 1 KB
broker: { type: nats, url: "\${GATE_NATS_URL}", nats: { mode: core } }
workload: { destination: gate.noise, warmup: 2s, duration: $duration, drain: 1s }
matrix:
  - { size: 1KB, rate: $rate }
YAML
  "$repo/bin/delayproxy" -listen 127.0.0.1:14222 -target 127.0.0.1:4222 -delay "$delay" -precise="$([[ $precise == 0 ]] && echo false || echo true)" &
  proxy=$!
  trap 'kill $proxy 2>/dev/null || true' EXIT
  # Interleaved, so a slow phase of the machine hits both sides alike.
  for ((i = 0; i < (pairs + 1) * repeat; i++)); do
    GATE_NATS_URL=nats://127.0.0.1:4222 MQ_PROGRESS=off "$k6" x mqbench run "$dir/gate-nats.yaml" --results "$dir/base/$i" >/dev/null 2>&1 || true
    if ((i < pairs * repeat)); then
      GATE_NATS_URL=nats://127.0.0.1:14222 MQ_PROGRESS=off "$k6" x mqbench run "$dir/gate-nats.yaml" --results "$dir/slow/$i" >/dev/null 2>&1 || true
    fi
    echo "gate-noise: run $((i + 1)) of $(((pairs + 1) * repeat))" >&2
  done
fi
# Comparison i: baseline runs i*repeat … i*repeat+repeat-1 against the next group (identical
# load) or the same indexes of the delayed runs.
group() { # side first → --flag dir …
  local flag=$1 side=$2 first=$3 j
  for ((j = first; j < first + repeat; j++)); do printf '%s\n' "$flag" "$dir/$side/$j/gate-nats"; done
}
same=0 caught=0
for ((i = 0; i < pairs; i++)); do
  mapfile -t base < <(group --baseline base $((i * repeat)))
  mapfile -t next < <(group --candidate base $(((i + 1) * repeat)))
  mapfile -t slow < <(group --candidate slow $((i * repeat)))
  if "$k6" x mqbench compare "${base[@]}" "${next[@]}" \
    --tolerance "$tolerance" --out "$dir/compare/same-$i" >"$dir/same-$i.txt" 2>&1; then
    same=$((same + 1))
  fi
  if ! "$k6" x mqbench compare "${base[@]}" "${slow[@]}" \
    --tolerance "$tolerance" --out "$dir/compare/slow-$i" >"$dir/slow-$i.txt" 2>&1; then
    caught=$((caught + 1))
  fi
done
shift=$(python3 - "$dir" "$pairs" <<'PY'
import glob, json, statistics, sys
d, n = sys.argv[1], int(sys.argv[2])
def p99(side):
    out = []
    for f in glob.glob(f"{d}/{side}/*/gate-nats/*/summary.json"):
        c = json.load(open(f))["cells"][0]
        out.append(c["e2e_latency_us"]["percentiles"]["p99"])
    return statistics.median(out)
b, s = p99("base"), p99("slow")
print(f"median e2e p99 {b:.0f}us -> {s:.0f}us through the proxy ({(s - b) / b * 100:+.0f}%)")
PY
)
echo "gate-noise: identical-load pairs passed $same of $pairs; delayed pairs failed $caught of $pairs; $shift; tolerance $tolerance, $repeat run(s) per side, $duration at $rate msg/s, delay $delay (precise: $precise)"
