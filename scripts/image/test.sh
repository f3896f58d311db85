#!/usr/bin/env bash
# The runner image, built and run here (make test): from a folder holding nothing but a
# scenario, `run -v DIR:/work IMAGE scenario.yaml` must pass (0), fail a threshold (99) and
# find the broker unreachable (112), and leave DIR/results/<name>/<ts>/summary.json each time;
# its shell must run what the k6-operator's initializer runs.
# Needs nats-server on 127.0.0.1:4222 (scripts/brokers/start.sh nats).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
"$repo/scripts/image/build.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenario() { # NAME URL LIMIT
  cat >"$work/$1.yaml" <<YAML
name: $1
broker: { type: nats, url: "$2" }
workload: { destination: image.test.$1, warmup: 1s, duration: 2s, drain: 1s }
matrix:
  - { size: 256B, rate: 200 }
thresholds:
  mq_e2e_latency: ["$3"]
  mq_messages_lost: ["count == 0"]
YAML
}
scenario pass nats://127.0.0.1:4222 "p(99) < 500ms"
scenario breach nats://127.0.0.1:4222 "p(50) < 1ns"
scenario unreachable nats://127.0.0.1:1 "p(99) < 500ms"
fail=0
for c in pass:0 breach:99 unreachable:112; do
  name=${c%%:*} want=${c##*:}
  set +e
  "$repo/scripts/image/run.sh" "$work" -- "$name.yaml" >"$work/$name.out" 2>"$work/$name.err"
  code=$?
  set -e
  summary=$(find "$work/results/$name" -name summary.json 2>/dev/null | head -1)
  sent=0 received=-1
  # The image's own k6 reads its summary (figure: the first cell's counts).
  [[ $name != pass || -z $summary ]] || read -r sent received <<<"$(MQBENCH_IMAGE_ENTRYPOINT=k6 \
    "$repo/scripts/image/run.sh" "$work" -- x mqbench figure "${summary#"$work"/}" sent received 2>>"$work/$name.err")"
  if [[ $code != "$want" || -z $summary ]]; then
    echo "image test $name: exit $code (want $want), summary.json: ${summary:-missing}" >&2
    tail -5 "$work/$name.err" >&2
    fail=1
  elif [[ $name == pass ]] && ! ((sent > 0 && received == sent)); then
    echo "image test $name: received != sent in $summary" >&2
    fail=1
  else
    echo "image test $name: exit $code, $summary"
  fi
done
# One image for the k6-operator too: its initializer runs `sh -c` with command -v, grep, mkdir
# and dirname around k6 archive and k6 inspect; a CI job's script runs in it the same way.
# shellcheck disable=SC2016 # expanded by the image's shell
if MQBENCH_IMAGE_ENTRYPOINT=/bin/sh "$repo/scripts/image/run.sh" "$work" -- -c \
  'command -v k6 >/dev/null && mkdir -p "$(dirname /tmp/a/b)" && k6 version | grep -q mqbench' >"$work/shell.out" 2>&1; then
  echo "image test shell: sh, command -v, mkdir, dirname, grep and k6 answer"
else
  echo "image test shell: the image's shell cannot run what the k6-operator's initializer runs" >&2
  cat "$work/shell.out" >&2
  fail=1
fi
exit "$fail"
