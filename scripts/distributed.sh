#!/usr/bin/env bash
# `make distributed SCENARIO=… RUNNERS=N`: a distributed run on one machine, the way the
# k6-operator runs one on Kubernetes. N bin/k6 processes get exactly the operator's runner
# arguments (--execution-segment, --execution-segment-sequence, --paused, a REST address,
# instance_id and testrun_name tags); once every one answers on its REST address, they are
# resumed one after another (PATCH /v1/status, as the operator's starter does); when all
# have ended, `k6 x mqbench merge` checks their shards and judges the run. The exit code is
# the merge's: 0 pass, 99 a threshold failed, 114 the shards do not make one run.
#   scripts/distributed.sh SCENARIO RUNNERS [k6 run flags]
# MQ_RUN_ID names the run (default: UTC timestamp and pid), MQ_RESULTS the results root.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
source "$repo/scripts/k6env.sh"
[[ $# -ge 2 ]] || { echo "usage: scripts/distributed.sh SCENARIO RUNNERS [k6 run flags]" >&2; exit 2; }
scenario=$1 n=$2
shift 2
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "distributed: RUNNERS must be a positive number, got '$n'" >&2; exit 2; }
k6="${MQBENCH_K6:-$repo/bin/k6}"
name=$(basename "$scenario"); name=${name%.yaml}; name=${name%.yml}
export MQ_RUNNERS=$n MQ_RUN_ID="${MQ_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$$}" MQ_SCENARIO="$scenario"
export MQ_RESULTS="${MQ_RESULTS:-$repo/results}"
run_dir="$MQ_RESULTS/$name/$MQ_RUN_ID"
mkdir -p "$run_dir/logs"

# The operator's split: runner i of n gets (i-1)/n:i/n of the sequence 0,1/n,…,1.
frac() { if (( $1 == 0 )); then echo 0; elif (( $1 == n )); then echo 1; else echo "$1/$n"; fi; }
sequence=$(for ((i = 0; i <= n; i++)); do frac "$i"; done | paste -sd,)
# free_ports N: N distinct ports, one a line, from the kernel's range for port 0 (less its
# reserved ports) that no TCP socket here holds (listening or connected, /proc/net/tcp*): free
# when picked, as a bind to port 0 gives them, not reserved.
free_ports() {
  local lo hi item p f addr _ k=0 used=() reserved=()
  read -r lo hi </proc/sys/net/ipv4/ip_local_port_range
  IFS=, read -r -a reserved </proc/sys/net/ipv4/ip_local_reserved_ports || true
  for item in "${reserved[@]}"; do
    for ((p = ${item%-*}; p <= ${item#*-}; p++)); do used[p]=1; done
  done
  for f in /proc/net/tcp /proc/net/tcp6; do
    [[ -r $f ]] || continue
    while read -r _ addr _; do [[ $addr != *:* ]] || used[16#${addr##*:}]=1; done <"$f"
  done
  while ((k < $1)); do
    p=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
    [[ -n ${used[p]:-} ]] && continue
    used[p]=1 k=$((k + 1))
    echo "$p"
  done
}
# A REST port per runner, and one for the reference clock.
mapfile -t ports < <(free_ports $((n + 1)))

pids=() clock_pid=
cleanup() { for p in "${pids[@]}" $clock_pid; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
# The reference clock a shared destination's runners measure their offsets to (on one host
# they share a clock: the measurement then shows the method's own floor). MQ_CLOCK_REF set by
# the caller names another reference.
if [[ -z ${MQ_CLOCK_REF:-} ]]; then
  clock_port=${ports[n]}
  "$k6" x mqbench clock --listen "127.0.0.1:$clock_port" >"$run_dir/logs/clock.log" 2>&1 &
  clock_pid=$!
  export MQ_CLOCK_REF="127.0.0.1:$clock_port"
fi
# MQ_TEST_ONLY_CLOCK_SKEWS=d1,d2,…: a test shifts runner i's clock by d_i (the clock-offset
# correction's itest); never in a real run.
IFS=, read -r -a skews <<<"${MQ_TEST_ONLY_CLOCK_SKEWS:-}"
for ((i = 1; i <= n; i++)); do
  MQ_TEST_ONLY_CLOCK_SKEW="${skews[i - 1]:-}" "$k6" x mqbench run "$scenario" --quiet --execution-segment="$(frac $((i - 1))):$(frac "$i")" --execution-segment-sequence="$sequence" \
    --address="127.0.0.1:${ports[i - 1]}" --paused --tag instance_id="$i" --tag testrun_name="$name" "$@" \
    >"$run_dir/logs/runner-$i.log" 2>&1 &
  pids+=($!)
done

# Like the operator: every runner must answer before any is started.
for ((i = 1; i <= n; i++)); do
  for ((t = 0; ; t++)); do
    curl -sf "http://127.0.0.1:${ports[i - 1]}/v1/status" >/dev/null && break
    if ! kill -0 "${pids[i - 1]}" 2>/dev/null || (( t > 600 )); then
      echo "distributed: runner $i did not come up; end of $run_dir/logs/runner-$i.log:" >&2
      tail -n 20 "$run_dir/logs/runner-$i.log" >&2
      exit 1
    fi
    sleep 0.1
  done
done
for ((i = 1; i <= n; i++)); do
  curl -sf -X PATCH -H 'Content-Type: application/json' \
    -d '{"data":{"type":"status","id":"default","attributes":{"paused":false}}}' \
    "http://127.0.0.1:${ports[i - 1]}/v1/status" >/dev/null
done
echo "distributed: $n runners of $name started (run $MQ_RUN_ID); logs in $run_dir/logs" >&2

for ((i = 1; i <= n; i++)); do
  code=0
  wait "${pids[i - 1]}" || code=$?
  if (( code != 0 )); then
    echo "distributed: runner $i exited $code; end of $run_dir/logs/runner-$i.log:" >&2
    tail -n 5 "$run_dir/logs/runner-$i.log" >&2
  fi
done
pids=()
# Not exec: the EXIT trap must still stop the reference clock.
code=0
"$k6" x mqbench merge "$run_dir" || code=$?
exit "$code"
